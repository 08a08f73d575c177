/**
 * bench:worst's requests and the process that sends them: a child process, so that the server's
 * `process.cpuUsage()` counts none of the client's work.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The answer must not contain this (an MCP tool error still answers 200). */
  failIf?: string;
}

export const get = (path: string, headers: Record<string, string> = {}): Req => ({ method: 'GET', path, headers });
export const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}): Req => ({
  method,
  path,
  headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
});
export const withKey = (key: string) => ({ 'x-api-key': key });

/** The 2025 revision the worst-case calls speak: a call without `_meta`, so no initialize is needed (stateless). */
const MCP_2025_REVISION = '2025-11-25';

/** One JSON-RPC call per POST /mcp (stateless: no initialize needed, as a fresh server answers each POST). */
export const mcpCall = (key: string, method: string, params: Record<string, unknown>): Req => ({
  ...send(
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: 1, method, params },
    { ...withKey(key), accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_2025_REVISION },
  ),
  failIf: '"isError":true',
});
export const mcpTool = (key: string, name: string, args: Record<string, unknown>) => mcpCall(key, 'tools/call', { name, arguments: args });

/**
 * The client: plain JavaScript in a child process, one request at a time, each answer read to
 * its last byte. It reports the status codes, the first answer of each status, and the first
 * answer that contains a request's `failIf`.
 */
const CLIENT = `
let reqs = [];
const base = process.argv[1];
process.on('message', async (m) => {
  if (m.type === 'load') { reqs = m.reqs; process.send({ type: 'loaded' }); return; }
  if (m.type === 'stop') { process.disconnect(); return; }
  try {
    const statuses = {}; const samples = {}; let failed = null;
    for (const r of reqs) {
      const res = await fetch(base + r.path, { method: r.method, headers: r.headers, body: r.body, redirect: 'manual' });
      const text = await res.text();
      statuses[res.status] = (statuses[res.status] || 0) + 1;
      if (!(res.status in samples)) samples[res.status] = text.slice(0, 800);
      if (failed === null && r.failIf && text.includes(r.failIf)) failed = text.slice(0, 800);
    }
    reqs = [];
    process.send({ type: 'done', statuses, samples, failed });
  } catch (err) {
    process.send({ type: 'error', message: String(err && err.stack || err) });
  }
});
`;

interface ClientResult {
  statuses: Record<string, number>;
  samples: Record<string, string>;
  failed: string | null;
}

export class Client {
  private readonly child: ChildProcess;
  private waiting: { resolve(m: Record<string, unknown>): void; reject(e: Error): void } | null = null;

  constructor(baseUrl: string) {
    this.child = spawn(process.execPath, ['-e', CLIENT, baseUrl], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: Record<string, unknown>) => {
      const w = this.waiting;
      this.waiting = null;
      if (m.type === 'error') w?.reject(new Error(`client: ${String(m.message)}`));
      else w?.resolve(m);
    });
    this.child.on('exit', (code) => this.waiting?.reject(new Error(`the client process exited (${code})`)));
  }

  private ask(message: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.child.send(message as never);
    });
  }

  load(reqs: readonly Req[]): Promise<unknown> {
    return this.ask({ type: 'load', reqs });
  }

  async go(): Promise<ClientResult> {
    return (await this.ask({ type: 'go' })) as unknown as ClientResult;
  }

  close(): void {
    this.child.send({ type: 'stop' });
  }
}

/** The answer's body as JSON; throws with its status and the start of its body when it is not a success. */
export async function readJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** The names of the tools POST /mcp lists for `key`. */
export async function listedTools(baseUrl: string, key: string): Promise<string[]> {
  const tools = await readJson<{ result: { tools: { name: string }[] } }>(
    await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: mcpCall(key, 'tools/list', {}).headers!,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    }),
  );
  return tools.result.tools.map((t) => t.name);
}
