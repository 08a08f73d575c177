// bench:policy's command line, in a module of its own that policy.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:policy',
  usage: `Usage:
  npm run bench:policy -- --catalog-uri DIR [--queries 300] [--rounds 5] [--verbose]
CPU per search with a publisher policy of 20 excluded categories and 50 excluded brands, against
the same searches without a policy, alternating in rounds, on the catalog at DIR (an imported
catalog: npm run ingest, or one bench:scale or npm run eval left). Queries: the Home Depot dev
queries (../shared), else product titles from the catalog. Uses DATABASE_URL when set, else PGlite.`,
  options: { 'catalog-uri': { type: 'string' }, queries: { type: 'string' }, rounds: { type: 'string' }, 'cache-dir': { type: 'string' } },
});
