// bench:worst's command line, in a module of its own that worst.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:worst',
  usage: `Usage:
  npm run bench:worst -- [--catalog-uri DIR] [--sample] [--rounds 3] [--only search,mcp] [--trace] [--verbose]
The most expensive valid request of every route and MCP tool beside a typical one: CPU, event-loop
block and memory. Home Depot catalog from ../shared (--sample: the sample catalog). Uses
DATABASE_URL when set, else PGlite.`,
  options: {
    'catalog-uri': { type: 'string' },
    sample: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    only: { type: 'string' },
    trace: { type: 'boolean', default: false },
  },
});
