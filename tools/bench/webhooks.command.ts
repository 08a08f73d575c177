// bench:webhooks's command line, in a module of its own that webhooks.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:webhooks',
  usage: `Usage:
  npm run bench:webhooks -- [--events 5000] [--concurrency 32] [--rate 200] [--seconds 5] [--poll 100] [--verbose]
Webhook delivery from one worker to a local receiver: backlog throughput, then commit-to-receipt
latency. DATABASE_URL=postgres://... benches PostgreSQL instead of PGlite.`,
  options: { events: { type: 'string' }, concurrency: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' }, poll: { type: 'string' } },
});
