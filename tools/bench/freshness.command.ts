// bench:freshness's command line, in a module of its own that freshness.ts imports first: the
// flags are parsed, and a usage mistake or --help answered, before the bench's modules load.
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:freshness',
  usage: `Usage:
  npm run bench:freshness -- [--products 100000] [--commits 1000] [--commit-size 10] [--cache-dir DIR] [--verbose]
Keeping a catalog fresh, on PRODUCTS synthetic products (npm run gen-catalog's): a fresh import
(index and cold-start fit included), the same feed again, price-only deltas of 10% and of every
product (command to searchable in another handle), then COMMITS small delta imports of
COMMIT-SIZE products each, with search latency and storage after them and after upkeep.`,
  options: { products: { type: 'string' }, commits: { type: 'string' }, 'commit-size': { type: 'string' }, 'cache-dir': { type: 'string' } },
});
