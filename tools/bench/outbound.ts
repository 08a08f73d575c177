/**
 * Why Aisle's outbound HTTP client is built on Node's own `http` (docs/decisions/0020): against
 * undici 7.30 `request`, the client it replaced, on raw servers on 127.0.0.1.
 * - Crashes: processes that each download a 512 KB body --pulls times from a server that closes
 *   after it (undici#5360: the parser, paused under backpressure, asserts at the socket's end).
 *   A process that dies is counted; each runs in its own child so a crash ends only it.
 * - Download throughput: --megabytes to a file, median of --runs, each client.
 * - Small requests: --requests keep-alive POSTs of 200 bytes answered with 2 bytes, in a row.
 *
 *   npm run bench:outbound -- [--processes 10] [--pulls 40] [--megabytes 200] [--runs 5] [--requests 2000]
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { OutboundClient } from '../../src/outbound/client.js';
import { formatTable, median, round } from './lib.js';
import { cli } from './outbound.command.js';

type Client = 'undici' | 'outbound';
const CLIENTS: Client[] = ['undici', 'outbound'];
const flag = (name: string, fallback: number) => Number(cli.values[name as keyof typeof cli.values] ?? fallback);

/** A server that answers every request with `body` and closes, as a feed host with `Connection: close` does. */
async function closingServer(body: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    s.once('data', () => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`), body])));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** One client downloading `url` to `file`. */
async function download(client: Client, url: string, file: string, undiciAgent: Agent, outbound: OutboundClient): Promise<void> {
  if (client === 'undici') {
    const res = await request(url, { dispatcher: undiciAgent });
    await pipeline(res.body, createWriteStream(file));
  } else {
    await outbound.download(url, { timeoutMs: 60_000, maxBytes: 4 * 1024 ** 3 }, file);
  }
}

/**
 * The child: --pulls downloads in a row to --file, then exit 0; a crash exits otherwise. The file
 * is in the parent's folder, which the parent removes: a child that crashes leaves nothing behind.
 */
async function child(client: Client, url: string, pulls: number, file: string): Promise<void> {
  const agent = new Agent();
  const outbound = new OutboundClient({ allowPrivate: true });
  let done = 0;
  process.on('exit', () => process.stdout.write(`${done}\n`));
  for (let i = 0; i < pulls; i++) {
    await download(client, url, file, agent, outbound).catch(() => undefined);
    done += 1;
  }
  await agent.close();
  await outbound.close();
}

async function crashes(client: Client, url: string, processes: number, pulls: number, dir: string): Promise<{ died: number; pulls: number[] }> {
  let died = 0;
  const completed: number[] = [];
  for (let p = 0; p < processes; p++) {
    const file = join(dir, `${client}-${p}`);
    const proc = spawn(process.execPath, [process.argv[1]!, '--child', client, '--pulls', String(pulls), '--url', url, '--file', file], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
    if (code !== 0) died += 1;
    completed.push(Number(out.trim() || 0));
  }
  return { died, pulls: completed };
}

/** A well-behaved server (Node's http): keeps the connection for undici, closes it when asked, as for Aisle's downloads. */
async function fileServer(body: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((_req, res) => res.writeHead(200, { 'content-length': body.length }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function throughput(client: Client, megabytes: number, runs: number): Promise<number> {
  const server = await fileServer(Buffer.alloc(megabytes * 1024 * 1024, 0x61));
  const dir = await mkdtemp(join(tmpdir(), 'aisle-bench-outbound-'));
  const agent = new Agent();
  const outbound = new OutboundClient({ allowPrivate: true });
  const rates: number[] = [];
  try {
    for (let r = 0; r < runs; r++) {
      const started = performance.now();
      await download(client, server.url, join(dir, 'feed'), agent, outbound);
      rates.push(megabytes / ((performance.now() - started) / 1000));
    }
  } finally {
    await agent.close();
    await outbound.close();
    await rm(dir, { recursive: true, force: true });
    await server.close();
  }
  return median(rates);
}

async function smallRequests(client: Client, requests: number): Promise<number> {
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-length': 2 }).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const agent = new Agent();
  const outbound = new OutboundClient({ allowPrivate: true });
  const body = JSON.stringify({ type: 'click', data: 'x'.repeat(170) });
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    if (client === 'undici') {
      const res = await request(url, { method: 'POST', body, dispatcher: agent, headers: { 'content-type': 'application/json' } });
      await res.body.text();
    } else {
      await outbound.request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        timeoutMs: 10_000,
        maxBytes: 2048,
        overflow: 'truncate',
      });
    }
    times.push(performance.now() - started);
  }
  await agent.close();
  await outbound.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  return median(times.slice(Math.floor(times.length / 10)));
}

async function main(): Promise<void> {
  if (cli.values.child !== undefined) return child(cli.values.child as Client, cli.values.url!, flag('pulls', 40), cli.values.file!);
  const processes = flag('processes', 10);
  const pulls = flag('pulls', 40);
  const server = await closingServer(Buffer.alloc(512 * 1024, 0x61));
  const dir = await mkdtemp(join(tmpdir(), 'aisle-bench-outbound-'));
  const rows: string[][] = [];
  try {
    for (const client of CLIENTS) {
      const c = await crashes(client, server.url, processes, pulls, dir);
      rows.push([client, `${c.died} of ${processes}`, `${c.pulls.reduce((a, b) => a + b, 0)} of ${processes * pulls}`]);
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\nA server that closes after a 512 KB body (${processes} processes × ${pulls} downloads each):\n`);
  console.log(formatTable(['client', 'processes killed', 'downloads completed'], rows));
  const megabytes = flag('megabytes', 200);
  const runs = flag('runs', 5);
  const requests = flag('requests', 2000);
  const speed: string[][] = [];
  // Alternating, so a change in the machine's load falls on both clients alike.
  const mbps = new Map<Client, number[]>(CLIENTS.map((c) => [c, []]));
  const small = new Map<Client, number[]>(CLIENTS.map((c) => [c, []]));
  for (let r = 0; r < runs; r++) {
    for (const client of CLIENTS) {
      mbps.get(client)!.push(await throughput(client, megabytes, 1));
      small.get(client)!.push(await smallRequests(client, requests));
    }
  }
  for (const client of CLIENTS) speed.push([client, String(round(median(mbps.get(client)!), 0)), String(round(median(small.get(client)!) * 1000, 0))]);
  console.log(
    `\nDownload of ${megabytes} MB to a file, and ${requests} keep-alive POSTs in a row (per-request median, first 10 % left out); medians of ${runs} alternating runs:\n`,
  );
  console.log(formatTable(['client', 'download MB/s', 'µs per small request'], speed));
}

await main();
