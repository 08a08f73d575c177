// bench:embed's command line, in a module of its own that embed.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the bench's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:embed',
  usage: `Usage:
  npm run bench:embed -- [--queries 500] [--products 2000] [--batch 64] [--warmup 50] [--verbose]
  npm run bench:embed -- --compare [--rounds 3] [--queries 500] [--products 2000]
The default embedder's start-up (cold and warm model cache), single-query latency and batch
throughput for ingestion. --compare measures USE-lite's float32 and int8 builds instead, in
alternating rounds in one process, and reports each one's medians and their ratios.`,
  options: {
    queries: { type: 'string' },
    products: { type: 'string' },
    batch: { type: 'string' },
    warmup: { type: 'string' },
    compare: { type: 'boolean', default: false },
    rounds: { type: 'string' },
  },
});
