// bench:outbound's command line, in a module of its own that outbound.ts imports first (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'bench:outbound',
  usage: `Usage:
  npm run bench:outbound -- [--processes 10] [--pulls 40] [--megabytes 200] [--runs 5] [--requests 2000] [--verbose]
Aisle's outbound HTTP client (Node's http) against undici 7, the client it replaced, on servers
on 127.0.0.1: how many processes a server that closes after a 512 KB body kills (--processes
processes, --pulls downloads each), download throughput (--megabytes, median of --runs), and
small keep-alive POSTs (--requests in a row, median per request).`,
  options: {
    processes: { type: 'string' },
    pulls: { type: 'string' },
    megabytes: { type: 'string' },
    runs: { type: 'string' },
    requests: { type: 'string' },
    child: { type: 'string' },
    url: { type: 'string' },
    file: { type: 'string' },
  },
});
