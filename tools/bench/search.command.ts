// bench:search's command line, in a module of its own that search.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:search',
  usage: `Usage:
  npm run bench:search -- [--catalog-uri DIR] [--queries 300] [--duration 10] [--learning-running] [--seed 1500]
                          [--baseline-learning-off] [--baseline-tuning overfetch=N,ef=N,nprobes=N] [--verbose]
Search latency and throughput on the Home Depot catalog (../shared; synthetic when absent).
Uses DATABASE_URL when set, else PGlite.`,
  options: {
    'catalog-uri': { type: 'string' },
    queries: { type: 'string' },
    duration: { type: 'string' },
    'baseline-tuning': { type: 'string' },
    'baseline-learning-off': { type: 'boolean', default: false },
    'learning-running': { type: 'boolean', default: false },
    seed: { type: 'string' },
  },
});
