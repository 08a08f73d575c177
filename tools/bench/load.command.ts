// bench:load's command line, in a module of its own that load.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:load',
  usage: `Usage:
  npm run bench:load -- [--catalog-uri DIR] [--duration 20] [--connections 16] [--profile] [--profile-dir DIR] [--verbose]
  npm run bench:soak -- [--catalog-uri DIR] [--soak 10] [--duration 20] [--sample-seconds 15] [--verbose]
Load and soak against src/main.ts as its own process on PostgreSQL: DATABASE_URL is required
(a throwaway database is created on that server and dropped afterwards).`,
  options: {
    'catalog-uri': { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    soak: { type: 'string' },
    'sample-seconds': { type: 'string' },
    profile: { type: 'boolean', default: false },
    'profile-dir': { type: 'string' },
  },
});
