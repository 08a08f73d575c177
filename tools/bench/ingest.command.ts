// bench:ingest's command line, in a module of its own that ingest.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:ingest',
  usage: `Usage:
  npm run bench:ingest -- [--file FEED] [--limit N] [--pairs N] [--cache-dir DIR] [--verbose]
Ingest throughput split into parse, embed and write, on FEED (default: the Home Depot catalog in
../shared/data/eval/homedepot, or a synthetic one when that is absent); the full import N times
without placement in the taxonomy and N times with it (default 1).`,
  options: { file: { type: 'string' }, limit: { type: 'string' }, pairs: { type: 'string' }, 'cache-dir': { type: 'string' } },
});
