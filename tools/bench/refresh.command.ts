// bench:refresh's command line, in a module of its own that refresh.ts imports first: the flags
// are parsed, and a usage mistake or --help answered, before the bench's modules load.
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:refresh',
  usage: `Usage:
  npm run bench:refresh -- [--products 3000] [--changes 20] [--agents 2] [--steady 20] [--cache-dir DIR] [--verbose]
Catalog changes under a steady search load, as an operator runs them: npm start (two API
processes on PostgreSQL when DATABASE_URL is set, one on PGlite otherwise) serves PRODUCTS
synthetic products while AGENTS agents search it without pause; after STEADY seconds, CHANGES
changes land one after another through npm run ingest (in each ten: six one-product imports,
three price deltas, one import with --refit), each awaited until the server serves it. Reports
failed searches, latency before and during the changes, and how long each change took to be served.`,
  options: {
    products: { type: 'string' },
    changes: { type: 'string' },
    agents: { type: 'string' },
    steady: { type: 'string' },
    'cache-dir': { type: 'string' },
  },
});
