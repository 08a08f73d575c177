// bench:conversation's command line, in a module of its own that conversation.ts imports first:
// the flags are parsed, and a usage mistake or --help answered, before the bench's own modules
// are evaluated (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:conversation',
  usage: `Usage:
  npm run bench:conversation -- [--catalog-uri DIR] [--queries 300] [--rounds 3] [--verbose]
CPU and wall time per search of a conversation against a product query, through the search core
on the Home Depot catalog (../shared; synthetic when absent): Home Depot dev queries beside the
project's Home Depot conversations (data/eval/conversation), alternating in rounds.`,
  options: { 'catalog-uri': { type: 'string' }, queries: { type: 'string' }, rounds: { type: 'string' } },
});
