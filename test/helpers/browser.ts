import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium package (playwright's own browser download needs a network CI does not have). */
export const CHROMIUM = process.env.AISLE_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

/** Headless Chromium; --no-sandbox because CI runs as root, where Chromium's sandbox refuses to start. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/** A browser entry point bundled into one inline script (the test host page's code). */
export async function bundleForBrowser(entry: string): Promise<string> {
  const result = await build({ entryPoints: [entry], bundle: true, format: 'iife', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
  return result.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1');
}

/** What an MCP client sends that the server reads; 2026-07-28 requests repeat method and name in Mcp-Method and Mcp-Name. */
const FORWARDED = ['accept', 'content-type', 'authorization', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'origin'];

/**
 * A chat client's web origin: serves `page` at / and forwards POST /mcp to Aisle with the
 * browser's headers (Origin included), like a host's own backend. The page then talks to /mcp on
 * its own origin, so the browser needs no CORS, and Aisle sees a loopback Origin on another port.
 */
export async function startHostOrigin(page: string, aisleBase: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    handle(req, res, page, aisleBase).catch((err: unknown) =>
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`test host origin: ${(err as Error).message}`),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function handle(req: IncomingMessage, res: ServerResponse, page: string, aisleBase: string): Promise<void> {
  if (req.method === 'GET' && req.url === '/') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    return;
  }
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
  const upstream = await fetch(`${aisleBase}/mcp`, { method: req.method ?? 'POST', headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
  res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
}
