// bench:report's command line, in a module of its own that report.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:report',
  usage: `Usage:
  npm run bench:report -- [--benches load,load-profile,soak,memory,search,clicks,webhooks,worst,object-store,eval-crowdflower]
                          [--catalog-uri DIR] [--azurite DIR] [--duration 20] [--soak 10] [--eval-limit 1500]
                          [--reuse NAME=FILE]... [--out BENCHMARKS.md] [--verbose]
Runs the chosen benches, each as its own process, and writes their figures to one report.
--azurite DIR: Azurite and the Azure Storage SDK for bench:object-store (see its --help).`,
  options: {
    benches: { type: 'string', default: 'load,load-profile,soak,memory,search,clicks,webhooks,worst,object-store,eval-crowdflower' },
    'catalog-uri': { type: 'string' },
    azurite: { type: 'string' },
    duration: { type: 'string', default: '20' },
    soak: { type: 'string', default: '10' },
    'eval-limit': { type: 'string', default: '1500' },
    reuse: { type: 'string', multiple: true, default: [] },
    out: { type: 'string', default: 'BENCHMARKS.md' },
  },
});
