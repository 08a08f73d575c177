// `npm run calibrate`'s command line, in a module of its own that calibrate.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the tool's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

const USAGE = `Usage:
  npm run calibrate -- [--sets DIR,DIR] [--queries-per-set N] [--dry-run] [--catalog-dir DIR]
                       [--with DIR]... [--size N] [--ann-threshold N] [--verbose]
Fits the ranking model and its calibration on the labelled dev sets (default
../shared/data/eval/crowdflower,../shared/data/eval/homedepot) and writes them into the configured
catalog; --dry-run only reports the calibration error.`;

export const cli = command({
  name: 'calibrate',
  usage: USAGE,
  options: {
    sets: { type: 'string' },
    'queries-per-set': { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    /** Keeps each set's imported catalog in DIR/<set name> and reuses it next time (as eval --catalog). */
    'catalog-dir': { type: 'string' },
    /** Distractor sets added to each set's catalog, as eval --with (a set is never its own distractor). */
    with: { type: 'string', multiple: true },
    size: { type: 'string' },
    'ann-threshold': { type: 'string' },
  },
});
