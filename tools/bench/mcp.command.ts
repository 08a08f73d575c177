// bench:mcp's command line, in a module of its own that mcp.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:mcp',
  usage: `Usage:
  npm run bench:mcp -- [--calls 200] [--rounds 3] [--limit 10] [--verbose]
search_products latency over MCP stdio and Streamable HTTP beside REST POST /v1/search, one call at a time.`,
  options: { calls: { type: 'string' }, rounds: { type: 'string' }, limit: { type: 'string' } },
});
