// `npm run learn`'s command line, in a module of its own that learn.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the tool's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'learn',
  usage: `Usage:
  npm run learn [--verbose]    one learning run now: judge the candidate model under test, or fit a new one
--verbose prints the stack trace of an unexpected error.`,
  options: {},
});
