// bench:object-store's command line, in a module of its own that object-store.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:object-store',
  usage: `Usage:
  npm run bench:object-store -- --azurite DIR [--latency-ms 20] [--queries 150] [--products FILE] [--verbose]
Search latency with the catalog at az:// in Azurite behind a store latency, beside a local catalog.
DIR: npm install --prefix DIR azurite@3.35.0 @azure/storage-blob@12.32.0`,
  options: {
    azurite: { type: 'string' },
    'latency-ms': { type: 'string' },
    queries: { type: 'string' },
    products: { type: 'string', default: 'data/sample-catalog.jsonl' },
  },
});
