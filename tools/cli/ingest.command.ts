// `npm run ingest`'s command line, in a module of its own that ingest.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the tool's own modules are evaluated
// (docs/development.md, "Operator tools").

import { PRESETS } from '../../src/catalog/files/presets.js';
import { FEED_FORMATS } from '../../src/catalog/files/types.js';
import { command } from '../../src/cli/command.js';

const USAGE = `Usage:
  npm run ingest -- FILE [--format ${FEED_FORMATS.join('|')}] [--replace] [--dry-run]
                        [--merchant NAME] [--mapping 'title=Product Name,price=Price' | --mapping map.json]
                        [--preset ${Object.keys(PRESETS).join('|')}] [--delimiter ';'] [--json] [--no-fit-ranking | --refit] [--verbose]
  npm run ingest -- --reindex        re-embed the whole catalog with the configured model

A file with the header of a known export (the presets' files) is read with its preset.
After an import, the catalog's cold-start ranking model is fitted from its own products and
stored (a model fitted on labelled data by npm run calibrate is kept); --no-fit-ranking skips it.
An import that changes under a tenth of the catalog keeps the model it has; --refit fits it anyway.
Exit codes: 0 done, 1 nothing valid imported, 64 usage, 65 unreadable feed, 66 missing file, 78 configuration.`;

export const cli = command({
  name: 'ingest',
  usage: USAGE,
  allowPositionals: true,
  options: {
    format: { type: 'string' },
    replace: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    reindex: { type: 'boolean', default: false },
    merchant: { type: 'string' },
    mapping: { type: 'string' },
    preset: { type: 'string' },
    delimiter: { type: 'string' },
    'batch-size': { type: 'string' },
    json: { type: 'boolean', default: false },
    'no-fit-ranking': { type: 'boolean', default: false },
    refit: { type: 'boolean', default: false },
  },
});
