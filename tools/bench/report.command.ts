// bench:report's command line, in a module of its own that report.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:report',
  usage: `Usage:
  npm run bench:report -- [--benches load,soak,memory,search,clicks,webhooks,eval-crowdflower] [--catalog-uri DIR]
                          [--duration 20] [--soak 10] [--eval-limit 1500] [--reuse NAME=FILE]... [--out BENCHMARKS.md] [--verbose]
Runs the chosen benches, each as its own process, and writes their figures to one report.`,
  options: {
    benches: { type: 'string', default: 'load,soak,memory,search,clicks,webhooks,worst,eval-crowdflower' },
    'catalog-uri': { type: 'string' },
    duration: { type: 'string', default: '20' },
    soak: { type: 'string', default: '10' },
    'eval-limit': { type: 'string', default: '1500' },
    reuse: { type: 'string', multiple: true, default: [] },
    out: { type: 'string', default: 'BENCHMARKS.md' },
  },
});
