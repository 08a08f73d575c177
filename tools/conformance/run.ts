/**
 * The MCP conformance suite against Aisle's /mcp: `npm run conformance` (Node 22 or later, as the
 * suite needs). Starts Aisle in this process on a throw-away embedded database with the suite's
 * fixtures registered beside Aisle's own tools (fixtures.ts; never in `npm start`), puts a loopback
 * proxy in front that adds the admin key (the suite cannot send a header), installs the suite into
 * a temporary folder unless --suite names one, and runs it once per requirement set with that set's
 * baseline of expected failures (baseline-<set>.yml, each entry says why). Then the suite's
 * authorization-server scenarios against the same Aisle, with headless Chromium playing the
 * person who signs in to the consent page and clicks Allow. Exits 1 if any run fails: an
 * unexpected failure, or a baseline entry that now passes. docs/mcp.md#conformance.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { command } from '../../src/cli/command.js';
import { CliError, EXIT, UsageError } from '../../src/cli/errors.js';
import { type Config, loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createProcessLogger } from '../../src/logger.js';
import { openRuntime } from '../../src/runtime.js';
import { conformanceFixtures } from './fixtures.js';

const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const REQUIREMENT_SETS = ['2026-07-28', '2025-11-25'] as const;
/** The authorization-server scenarios (metadata endpoint, authorization-code grant) run as one more entry of --requirements. */
const AUTHORIZATION = 'authorization';
const RUNS = [...REQUIREMENT_SETS, AUTHORIZATION] as const;
const HERE = fileURLToPath(new URL('.', import.meta.url));
/** Debian's chromium package, as .ci/run installs it. */
const DEFAULT_CHROMIUM = '/usr/bin/chromium';

const cli = command({
  name: 'conformance',
  usage: `Usage: npm run conformance -- [--requirements ${RUNS.join(',')}] [--suite DIR] [--out DIR] [--without-fixtures] [--chromium PATH]

Runs ${SUITE} against Aisle: the server scenarios against /mcp once per requirement set, then
the authorization-server scenarios against Aisle's OAuth endpoints.
  --requirements LIST  what to run, comma-separated (default: ${RUNS.join(',')});
                       ${AUTHORIZATION} is the suite's authorization-server scenarios, with the
                       consent page clicked in headless Chromium
  --suite DIR          a folder where the suite is installed (npm install --prefix DIR ${SUITE});
                       default: install it into a temporary folder
  --out DIR            keep the suite's per-scenario checks.json files there
  --without-fixtures   Aisle's own tools only, no baselines: shows which scenarios need the
                       suite's fixtures (they fail without them; docs/mcp.md lists them)
  --chromium PATH      the Chromium the authorization run drives (default: ${DEFAULT_CHROMIUM})
Needs Node 22 or later (the suite uses fs.globSync).`,
  options: {
    requirements: { type: 'string' },
    suite: { type: 'string' },
    out: { type: 'string' },
    'without-fixtures': { type: 'boolean' },
    chromium: { type: 'string' },
  },
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

/** A loopback port nothing listens on now: Aisle's public URL (the OAuth issuer) must name its port before Aisle is built. */
async function freePort(): Promise<number> {
  const server = createNetServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Aisle on an empty embedded database in `dataDir` (no sample catalog: the suite calls no Aisle
 * tool), listening on 127.0.0.1 with that address as its public URL, so the OAuth issuer is
 * exactly the URL the authorization scenarios are given.
 */
async function startAisle(config: Config, dataDir: string, withFixtures: boolean) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const isolated: Config = {
    ...config,
    dataDir,
    databaseUrl: undefined,
    catalog: { ...config.catalog, uri: join(dataDir, 'catalog'), loadSampleWhenEmpty: false },
    clickLinks: { ...config.clickLinks, publicBaseUrl: issuer },
    learning: false,
  };
  const logger = createProcessLogger('warn', config.logFormat);
  const runtime = await openRuntime(isolated, logger);
  const created = await runtime.core.accounts.ensureDefault();
  if (created === null) throw new Error(`a fresh data directory ${dataDir} already had an account`);
  const { app } = await buildApp({ core: runtime.core, logger, ...(withFixtures ? { mcpServer: { extension: conformanceFixtures() } } : {}) });
  await app.listen({ host: '127.0.0.1', port });
  const proxy = await startKeyProxy(app.server.address() as AddressInfo, created.firstKey.key);
  return {
    url: `http://localhost:${proxy.port}/mcp`,
    issuer,
    adminKey: created.firstKey.key,
    close: async () => {
      await proxy.close();
      await app.close();
      await runtime.close();
    },
  };
}

/** The person at the consent page: opens the authorization URL, signs in with the key, clicks Allow, and follows the redirect. */
async function consent(browser: Browser, url: string, key: string, redirectUri: string): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));
  } finally {
    await context.close();
  }
}

/**
 * `conformance authorization` against Aisle's issuer. The suite needs a registered public client
 * whose redirect URI is its own callback server (http://127.0.0.1:<port>/callback), so one is
 * registered by DCR first. The suite prints the authorization URL and waits for a browser to
 * reach its callback; headless Chromium signs in with the admin key and clicks Allow. A consent
 * that fails stops the suite rather than leaving it waiting its five minutes.
 */
async function runAuthorization(suite: string, aisle: { issuer: string; adminKey: string }, chromiumPath: string, out: string | undefined): Promise<number> {
  const callbackPort = await freePort();
  const redirectUri = `http://127.0.0.1:${callbackPort}/callback`;
  const registration = await fetch(`${aisle.issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'MCP conformance suite', redirect_uris: [redirectUri] }),
  });
  const registered = (await registration.json()) as { client_id?: string };
  if (registration.status !== 201 || registered.client_id === undefined)
    throw new CliError(EXIT.failure, `registering the suite's client failed: ${registration.status} ${JSON.stringify(registered)}`);
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] }).catch((err: unknown) => {
    throw new CliError(EXIT.unavailable, `the authorization run needs Chromium at ${chromiumPath} (--chromium PATH): ${(err as Error).message}`);
  });
  try {
    const args = [suite, 'authorization', '--url', aisle.issuer, '--client-id', registered.client_id, '--resource', `${aisle.issuer}/mcp`];
    args.push('--port', String(callbackPort));
    if (out !== undefined) args.push('-o', join(out, AUTHORIZATION));
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const consents: Promise<void>[] = [];
    let consentFailure: unknown = null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      process.stdout.write(`${line}\n`);
      if (!line.startsWith(`${aisle.issuer}/oauth/authorize?`)) return;
      consents.push(
        consent(browser, line, aisle.adminKey, redirectUri).catch((err: unknown) => {
          consentFailure = err;
          child.kill();
        }),
      );
    });
    const [code] = (await once(child, 'close')) as [number | null];
    await Promise.all(consents);
    if (consentFailure !== null) {
      process.stdout.write(`conformance authorization: the consent in Chromium failed: ${(consentFailure as Error).message}\n`);
      return 1;
    }
    if (consents.length === 0) {
      process.stdout.write('conformance authorization: the suite printed no authorization URL\n');
      return 1;
    }
    return code ?? 1;
  } finally {
    await browser.close();
  }
}

async function main(): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new CliError(EXIT.config, `the conformance suite needs Node 22 or later; this is Node ${process.versions.node}`);
  const sets = (cli.values.requirements ?? RUNS.join(',')).split(',').map((s) => s.trim());
  for (const set of sets) {
    if (!(RUNS as readonly string[]).includes(set)) throw new UsageError(`unknown requirement set ${set} (known: ${RUNS.join(', ')})`);
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
        if (set === AUTHORIZATION) {
          process.stdout.write(`\n== conformance ${AUTHORIZATION}: ${aisle.issuer} ==\n`);
          if ((await runAuthorization(suite, aisle, cli.values.chromium ?? DEFAULT_CHROMIUM, cli.values.out)) !== 0) failed.push(set);
          continue;
        }
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
