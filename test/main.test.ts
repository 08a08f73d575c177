import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Child, childEnv, runTs, tempDir } from './helpers/process.js';

const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.proc.kill('SIGKILL');
});

/** The variables by which onnxruntime 1.30 takes a process for a CI job and collects nothing (read from its library; docs/configuration.md). */
const ONNX_CI_VARIABLES = [
  'CI',
  'TF_BUILD',
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'CIRCLECI',
  'TRAVIS',
  'JENKINS_URL',
  'CODEBUILD_BUILD_ID',
  'BUILDKITE',
  'TEAMCITY_VERSION',
  'APPVEYOR',
  'BITBUCKET_BUILD_NUMBER',
];

function start(dataDir: string, extra: Record<string, string> = {}, onnxTelemetry?: { home: string; tmp: string; setting?: string }): Child {
  const env = childEnv(dataDir, extra);
  if (onnxTelemetry !== undefined) {
    // A home and a temp folder of its own, and ORT_DISABLE_TELEMETRY as the operator left it: the
    // suite sets it for its own sessions (test/vitest.config.ts), and childEnv passes that on.
    // onnxruntime also stays silent where a CI service's variable is set, and keeps its database
    // under XDG_CACHE_HOME when that is set: both are dropped, so these starts see what an
    // operator's server does wherever the suite runs.
    for (const name of [...ONNX_CI_VARIABLES, 'XDG_CACHE_HOME']) delete env[name];
    Object.assign(env, { HOME: onnxTelemetry.home, TMPDIR: onnxTelemetry.tmp });
    if (onnxTelemetry.setting === undefined) delete env.ORT_DISABLE_TELEMETRY;
    else env.ORT_DISABLE_TELEMETRY = onnxTelemetry.setting;
  }
  const child = runTs('src/main.ts', [], env);
  children.push(child);
  return child;
}

/** What onnxruntime's telemetry leaves (docs/configuration.md, "onnxruntime's telemetry"): its database under the home folder, its files in the temp folder. */
function onnxTelemetryTraces(folders: { home: string; tmp: string }): string[] {
  const inHome = existsSync(join(folders.home, '.cache', 'Microsoft')) ? ['~/.cache/Microsoft'] : [];
  return [...inHome, ...readdirSync(folders.tmp).filter((name) => /^mat-debug-\d+\.log$|^\.ses$/.test(name))];
}

describe('npm start (src/main.ts) on the embedded default', () => {
  it('creates the default account once, refuses a second process on the data dir, and shuts down gracefully', async () => {
    const dataDir = tempDir('main');
    const firstStart = { home: tempDir('main-home'), tmp: tempDir('main-tmp') };
    const server = start(dataDir, {}, firstStart);
    // The first start imports the sample catalog and fits its cold-start model (~10 s) first.
    const [, key] = await server.waitForStderr(/API key, shown only now: (aisle_sk_[0-9A-Za-z]{36})\n/, 120_000);
    const [, base] = await server.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    // The console's address for people, and the console answers there.
    const [, consoleUrl] = await server.waitForStderr(/Open (http:\/\/127\.0\.0\.1:\d+\/) and sign in with this key\n/);
    expect(consoleUrl).toBe(`${base}/`);
    const page = await fetch(consoleUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Aisle console</title>');
    // An empty catalog gets the sample products on first start.
    expect(server.stderr()).toMatch(/"products":\d{3},"skipped":0,.*loaded the sample catalog/);
    // ... and a ranking model fitted from them, which serves, and the log says why.
    expect(server.stderr()).toMatch(
      /"rankingModel":"cold-start \(catalog 501 products, \d+ synthetic requests\)","reason":"fitted from the catalog itself at import[^"]*","msg":"ranking model and relevance calibration"/,
    );
    const list = await fetch(`${base}/v1/keys`, { headers: { 'x-api-key': key! } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: { name: string }[] }).data[0]?.name).toBe('default admin');
    expect(server.stdout()).toBe('');
    // A first start going as planned warns of nothing (LanceDB's own log included): every line is an info line or ours.
    const warnings = server
      .stderr()
      .split('\n')
      .filter((line) => /\bWARN\b|"level":(40|50|60)/.test(line));
    expect(warnings).toEqual([]);

    // PGlite is single-process: a second server on the same directory must refuse, clearly.
    const second = start(dataDir);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/in use by process \d+/);

    // An in-flight request (body still arriving) completes after SIGTERM; then the process exits 0.
    // `Expect: 100-continue`: the server's "100 Continue" says it has the request, so the signal
    // is sent after that however slow the machine, not after a guessed delay.
    const body = JSON.stringify({ name: 'in flight' });
    const port = Number(new URL(base!).port);
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/keys',
          headers: { 'x-api-key': key!, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.once('continue', () => {
        req.write(body.slice(0, 5));
        server.proc.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      });
    });
    const done = await inFlight;
    expect(done.status, done.text).toBe(201);
    expect(await server.exited).toBe(0);
    // Its embedding model ran on onnxruntime, whose telemetry Aisle turns off: nothing of it is left.
    expect(onnxTelemetryTraces(firstStart)).toEqual([]);

    // A restart reuses the data: no new default account, the old key still works.
    // This start's operator turns onnxruntime's telemetry on (ORT_DISABLE_TELEMETRY=0), which Aisle
    // leaves be: its traces then show, so the check above looks where they would be.
    const optedIn = { home: tempDir('main-home'), tmp: tempDir('main-tmp'), setting: '0' };
    const again = start(dataDir, { AISLE_REQUEST_TIMEOUT_MS: '5000', AISLE_HEADERS_TIMEOUT_MS: '2000', AISLE_SHUTDOWN_GRACE_MS: '4000' }, optedIn);
    const [, base2] = await again.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(again.stderr()).not.toContain('shown only now');
    expect(again.stderr()).not.toContain('sign in with this key');
    expect(again.stderr()).toContain('catalog ready');
    const keys = await fetch(`${base2}/v1/keys`, { headers: { 'x-api-key': key! } });
    expect(((await keys.json()) as { data: { name: string }[] }).data.map((k) => k.name)).toEqual(['in flight', 'default admin']);
    // A client trickling its request does not hold the shutdown: it is answered 408 after half the
    // grace period (2 s, shorter than the 5 s request bound), and the process exits 0 on its own
    // instead of being forced out (exit 1) when the grace period ends.
    const trickler = connect(Number(new URL(base2!).port), '127.0.0.1');
    let trickled = '';
    trickler.on('data', (d: Buffer) => (trickled += d.toString()));
    trickler.on('error', () => undefined);
    await new Promise<void>((resolve) => trickler.once('connect', resolve));
    trickler.write(
      `POST /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key!}\r\nContent-Type: application/json\r\nContent-Length: 50\r\nExpect: 100-continue\r\n\r\n`,
    );
    // The signal goes once the server has the request (its "100 Continue"): a request that arrives
    // during shutdown is answered 503 at once.
    await vi.waitUntil(() => trickled.startsWith('HTTP/1.1 100 Continue\r\n\r\n'), { timeout: 30_000 });
    trickler.write('{"na');
    again.proc.kill('SIGINT');
    expect(await again.exited).toBe(0);
    expect(trickled).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 408 Request Timeout\r\n[\s\S]*"code":"request_timeout"/);
    // Should this fail, the message names the CI-like variables of the suite's own environment (names only).
    const ciLike = Object.keys(process.env).filter((name) => /CI|BUILD|RUNNER|XDG/.test(name));
    expect(onnxTelemetryTraces(optedIn), `the suite's environment has ${ciLike.join(', ') || 'none of them'}`).toEqual(
      expect.arrayContaining(['~/.cache/Microsoft', expect.stringMatching(/^mat-debug-\d+\.log$/)]),
    );
    // Three server starts (tsx compile, PGlite, the sample catalog's embeddings) took ~40 s on an
    // idle 2-core machine and over 60 s when it was busy; with the cold-start fit, 64 s with one
    // other job running. The default 60 s made this test flaky.
  }, 240_000);

  it('exits with a message naming the bad variable on invalid configuration', async () => {
    const child = runTs('src/main.ts', [], childEnv(tempDir('cfg'), { PORT: 'eighty' }));
    children.push(child);
    expect(await child.exited).toBe(1);
    expect(child.stderr()).toContain('PORT');
  });
});
