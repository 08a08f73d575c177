// `npm run simulate`'s command line, in a module of its own that simulate.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the tool's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';
import { LABELLED_SET_OPTIONS } from './labelled-set-options.js';

const USAGE = `Usage:
  npm run simulate -- --set DIR [--searches 20] [--eta 1] [--noise 0.1] [--bots 0] [--vote-rate 0.05]
                      [--conversion-rate 0.1] [--held-out-fold 0] [--seed 1] [--measure-every 5]
                      [--catalog DIR] [--model-cache DIR] [--limit N] [--eval-dir DIR]
                      [--dump-log FILE] [--no-skyline] [--verbose]
DIR holds products.jsonl, queries_dev.jsonl and qrels_dev.tsv (../shared/data/eval/crowdflower, say).`;

export const cli = command({
  name: 'simulate',
  usage: USAGE,
  options: {
    ...LABELLED_SET_OPTIONS,
    searches: { type: 'string' },
    eta: { type: 'string' },
    noise: { type: 'string' },
    bots: { type: 'string' },
    'vote-rate': { type: 'string' },
    'conversion-rate': { type: 'string' },
    'held-out-fold': { type: 'string' },
    seed: { type: 'string' },
    'measure-every': { type: 'string' },
    /** Writes the event log learning reads (one JSON object per shown result) to FILE, for offline study. */
    'dump-log': { type: 'string' },
    /** Leaves out the label-fitted skyline (it fits five models first). */
    'no-skyline': { type: 'boolean', default: false },
  },
});
