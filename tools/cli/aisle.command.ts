// `npm run aisle`'s command line, in a module of its own that aisle.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the tool's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';
import { SCOPES } from '../../src/core/keys/scopes.js';

const USAGE = `Usage:
  npm run aisle -- accounts create --name NAME [--json]
  npm run aisle -- keys create --account ACCOUNT_ID --name NAME [--scopes search,events:write] [--rate-limit N] [--json]
  npm run aisle -- ranking status [--json]
  npm run aisle -- ranking rollback
Scopes: ${SCOPES.join(', ')}
--verbose prints the stack trace of an unexpected error.`;

export const cli = command({
  name: 'aisle',
  usage: USAGE,
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    account: { type: 'string' },
    scopes: { type: 'string' },
    'rate-limit': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
