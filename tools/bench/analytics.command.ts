// bench:analytics's command line, in a module of its own that analytics.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:analytics',
  usage: `Usage:
  npm run bench:analytics -- [--samples 30] [--duration 10] [--connections 8] [--skip-search] [--verbose]
Times the usage and analytics endpoints on 1,000,000 seeded impressions, then search throughput
with the request log on and off. Uses DATABASE_URL when set (a database of its own), else PGlite.`,
  options: { samples: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string' }, 'skip-search': { type: 'boolean' } },
});
