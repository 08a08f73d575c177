// bench:memory's command line, in a module of its own that memory.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:memory',
  usage: `Usage:
  npm run bench:memory -- [--catalog-uri DIR] [--verbose]
The memory of an API process's parts, opened one after another (without --catalog-uri the Home
Depot catalog is imported into a temporary directory first).`,
  options: { 'catalog-uri': { type: 'string' } },
});
