// bench:ann's command line, in a module of its own that ann.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:ann',
  usage: `Usage:
  npm run bench:ann -- [--sets crowdflower,homedepot] [--size N] [--synthetic N] [--queries 300]
                       [--catalog-uri DIR] [--kinds ivf_hnsw_sq,ivf_pq] [--sweep ef=2,3 overfetch=1,1.5 nprobes=24] [--verbose]
Recall and latency of each ANN index kind against exact vector search at search's depth, on the
labelled sets' products (../shared/data/eval) or, without them or with --synthetic, synthetic vectors.`,
  allowPositionals: true,
  options: {
    synthetic: { type: 'string' },
    sets: { type: 'string', default: 'homedepot' },
    size: { type: 'string' },
    queries: { type: 'string', default: '300' },
    'catalog-uri': { type: 'string' },
    kinds: { type: 'string', default: 'ivf_hnsw_sq,ivf_pq' },
    sweep: { type: 'boolean', default: false },
  },
});
