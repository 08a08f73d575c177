// bench:scale's command line, in a module of its own that scale.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's modules load.
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:scale',
  usage: `Usage:
  npm run bench:scale -- [--products 1000000] [--embedding-model use-lite|use-lite-int8] [--work DIR]
                         [--duration 20] [--skip-load] [--verbose]
A catalog of PRODUCTS: CrowdFlower's 9,912 products (../shared) mixed into synthetic ones (npm run
gen-catalog's), imported by npm run ingest as an operator would (its progress bar and ETA shown),
then measured: import time and rate, disk used, the ANN index's build and recall@100 against
exact search, search p50/p99 for one client and for 16 connections with the API processes' RSS
(npm run bench:load on it; needs DATABASE_URL, else --skip-load), CrowdFlower dev NDCG@10 inside
it beside CrowdFlower's catalog alone (npm run eval on both), and the memory of the catalog's
vocabulary and lexicon (npm run bench:memory on it). --work DIR keeps the catalog and reuses it.`,
  options: {
    products: { type: 'string' },
    'embedding-model': { type: 'string' },
    work: { type: 'string' },
    duration: { type: 'string' },
    'skip-load': { type: 'boolean', default: false },
  },
});
