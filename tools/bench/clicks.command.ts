// bench:clicks's command line, in a module of its own that clicks.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:clicks',
  usage: `Usage:
  npm run bench:clicks -- [--duration 30] [--connections 32] [--impressions N] [--verbose]
Click recording throughput: POST /v1/clicks/{id} and GET /r/{id}?sig=…, every request a new
billable click. Uses DATABASE_URL when set, else PGlite.`,
  options: { duration: { type: 'string' }, connections: { type: 'string' }, impressions: { type: 'string' } },
});
