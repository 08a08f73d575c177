// `npm run knowledge`'s command line, in a module of its own that report.ts imports first (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'knowledge',
  usage: `Usage:
  npm run knowledge -- [--file FILE]... [--short-list FILE] [--measure] [--model-cache DIR] [--verbose]
Reads the shopper's knowledge base (data/knowledge/*.jsonl and each --file, as AISLE_KNOWLEDGE_FILE
adds it) against the taxonomy and reports what the server would use: types, categories and
verticals covered, the entries that fall short of 2 names and 8 needs over 3 relations, and what
the filters removed. A file with a bad line fails naming its lines (exit 65). --short-list writes
the short entries, as the filters left them, to FILE (JSON Lines), for topping them up.
--measure builds (or reads from --model-cache, default ./.aisle/models) the base's vectors with the
default embedding model and reports the time, the resident memory they add and the median time
of one match.`,
  options: {
    file: { type: 'string', multiple: true },
    'short-list': { type: 'string' },
    measure: { type: 'boolean', default: false },
    'model-cache': { type: 'string' },
  },
});
