// bench:auth's command line, in a module of its own that auth.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:auth',
  usage: `Usage:
  npm run bench:auth -- [--duration 5] [--connections 10] [--rounds 3] [--warmup 2] [--verbose]
Throughput of GET /healthz against the authenticated GET /v1/keys?limit=1 on one server.
DATABASE_URL=postgres://... benches PostgreSQL instead of PGlite.`,
  options: {
    duration: { type: 'string' },
    connections: { type: 'string' },
    rounds: { type: 'string' },
    warmup: { type: 'string' },
  },
});
