/**
 * The MCP conformance suite against Aisle's /mcp: `npm run conformance` (Node 22 or later, as the
 * suite needs). Starts Aisle in this process on a throw-away embedded database with the suite's
 * fixtures registered beside Aisle's own tools (fixtures.ts; never in `npm start`), puts a loopback
 * proxy in front that adds the admin key (the suite cannot send a header), installs the suite into
 * a temporary folder unless --suite names one, and runs it once per requirement set with that set's
 * baseline of expected failures (baseline-<set>.yml, each entry says why). Exits 1 if any run
 * fails: an unexpected failure, or a baseline entry that now passes. docs/mcp.md#conformance.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { command } from '../../src/cli/command.js';
import { CliError, EXIT, UsageError } from '../../src/cli/errors.js';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createProcessLogger } from '../../src/logger.js';
import { openRuntime } from '../../src/runtime.js';
import { conformanceFixtures } from './fixtures.js';

const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const REQUIREMENT_SETS = ['2026-07-28', '2025-11-25'] as const;
const HERE = fileURLToPath(new URL('.', import.meta.url));

const cli = command({
  name: 'conformance',
  usage: `Usage: npm run conformance -- [--requirements 2026-07-28,2025-11-25] [--suite DIR] [--out DIR] [--without-fixtures]

Runs ${SUITE} (server scenarios) against Aisle's /mcp, once per requirement set.
  --requirements LIST  requirement sets to run, comma-separated (default: ${REQUIREMENT_SETS.join(',')})
  --suite DIR          a folder where the suite is installed (npm install --prefix DIR ${SUITE});
                       default: install it into a temporary folder
  --out DIR            keep the suite's per-scenario checks.json files there
  --without-fixtures   Aisle's own tools only, no baselines: shows which scenarios need the
                       suite's fixtures (they fail without them; docs/mcp.md lists them)
Needs Node 22 or later (the suite uses fs.globSync).`,
  options: { requirements: { type: 'string' }, suite: { type: 'string' }, out: { type: 'string' }, 'without-fixtures': { type: 'boolean' } },
});

/** Runs `command` with this process's stdio; resolves with its exit code. */
async function run(commandName: string, args: string[]): Promise<number> {
  const child = spawn(commandName, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code ?? 1;
}

/**
 * A loopback proxy that adds `Authorization: Bearer <key>` and forwards everything else as it came,
 * Host and Origin included, so the suite's DNS-rebinding scenario still reaches Aisle's own checks.
 */
async function startKeyProxy(target: AddressInfo, key: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(
      { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) =>
      res.headersSent ? res.destroy(err) : res.writeHead(502, { 'content-type': 'text/plain' }).end(`conformance proxy: ${err.message}`),
    );
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Aisle on an empty embedded database in `dataDir` (no sample catalog: the suite calls no Aisle tool). */
async function startAisle(config: Config, dataDir: string, withFixtures: boolean) {
  const isolated: Config = {
    ...config,
    dataDir,
    databaseUrl: undefined,
    catalog: { ...config.catalog, uri: join(dataDir, 'catalog'), loadSampleWhenEmpty: false },
    learning: false,
  };
  const logger = createProcessLogger('warn', config.logFormat);
  const runtime = await openRuntime(isolated, logger);
  const created = await runtime.core.accounts.ensureDefault();
  if (created === null) throw new Error(`a fresh data directory ${dataDir} already had an account`);
  const { app } = await buildApp({ core: runtime.core, logger, ...(withFixtures ? { mcpServer: { extension: conformanceFixtures() } } : {}) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const proxy = await startKeyProxy(app.server.address() as AddressInfo, created.firstKey.key);
  return {
    url: `http://localhost:${proxy.port}/mcp`,
    close: async () => {
      await proxy.close();
      await app.close();
      await runtime.close();
    },
  };
}

async function main(): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new CliError(EXIT.config, `the conformance suite needs Node 22 or later; this is Node ${process.versions.node}`);
  const sets = (cli.values.requirements ?? REQUIREMENT_SETS.join(',')).split(',').map((s) => s.trim());
  for (const set of sets) {
    if (!(REQUIREMENT_SETS as readonly string[]).includes(set)) throw new UsageError(`unknown requirement set ${set} (known: ${REQUIREMENT_SETS.join(', ')})`);
  }
  const config = loadConfig();
  const scratch = mkdtempSync(join(tmpdir(), 'aisle-conformance-'));
  try {
    let suiteDir = cli.values.suite;
    if (suiteDir === undefined) {
      suiteDir = join(scratch, 'suite');
      if ((await run('npm', ['install', '--prefix', suiteDir, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', SUITE])) !== 0)
        throw new CliError(EXIT.unavailable, `npm install ${SUITE} failed (is the npm registry reachable?)`);
    }
    const suite = join(suiteDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
    const withFixtures = cli.values['without-fixtures'] !== true;
    const aisle = await startAisle(config, join(scratch, 'data'), withFixtures);
    const failed: string[] = [];
    try {
      for (const set of sets) {
        process.stdout.write(`\n== conformance ${set}: ${aisle.url} ==\n`);
        const args = [suite, 'server', '--url', aisle.url, '--requirements', set, '--timeout', '5000'];
        if (withFixtures) args.push('--expected-failures', join(HERE, `baseline-${set}.yml`));
        if (cli.values.out !== undefined) args.push('-o', join(cli.values.out, set));
        if ((await run(process.execPath, args)) !== 0) failed.push(set);
      }
    } finally {
      await aisle.close();
    }
    process.stdout.write(`\n== conformance: ${sets.map((s) => `${s} ${failed.includes(s) ? 'FAILED' : 'passed'}`).join(', ')} ==\n`);
    return failed.length === 0 ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await cli.run(main);
