// `npm run eval`'s command line, in a module of its own that eval.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the tool's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

const USAGE = `Usage:
  npm run eval -- --set DIR [--limit N] [--out DIR] [--eval-dir DIR] [--model-cache DIR] [--catalog DIR]
                  [--with DIR]... [--size N] [--ann-threshold N] [--exact-vectors] [--verbose]
DIR holds products.jsonl, queries_dev.jsonl and qrels_dev.tsv (../shared/data/eval/crowdflower, say);
--eval-dir holds ndcg.mjs and bm25-baseline.mjs (default: the set's ../../../eval).`;

export const cli = command({
  name: 'eval',
  usage: USAGE,
  options: {
    set: { type: 'string' },
    'eval-dir': { type: 'string' },
    limit: { type: 'string' },
    out: { type: 'string' },
    'model-cache': { type: 'string' },
    catalog: { type: 'string' },
    with: { type: 'string', multiple: true },
    size: { type: 'string' },
    'ann-threshold': { type: 'string' },
    'exact-vectors': { type: 'boolean', default: false },
  },
});
