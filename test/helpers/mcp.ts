import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  type CallToolResult,
  Client,
  type FetchLike,
  type JSONRPCMessage,
  ReadBuffer,
  StreamableHTTPClientTransport,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema as V1CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

export type { CallToolResult };

/** Every tool Aisle's MCP server lists, in order (docs/mcp.md, "Tools"). */
export const TOOL_NAMES = [
  'search_products',
  'record_click',
  'submit_feedback',
  'get_analytics',
  'record_display',
  'search_catalog',
  'lookup_catalog',
  'get_product',
] as const;

/**
 * The clients the MCP tests drive, one per protocol revision a host may speak: SDK 1.x (what most
 * hosts ship, 2025-11-25), SDK 2 on 2025-06-18, and SDK 2 pinned to 2026-07-28 (stateless, the
 * revision in every request's `_meta`).
 */
export const CLIENT_ERAS = ['2025-11-25 (SDK 1.x)', '2025-06-18 (SDK 2)', '2026-07-28 (SDK 2)'] as const;
export type ClientEra = (typeof CLIENT_ERAS)[number];
export type AnyClient = Client | V1Client;

export function newClient(era: ClientEra, name = 'aisle test'): AnyClient {
  const info = { name, version: '1.0.0' };
  if (era === '2025-11-25 (SDK 1.x)') return new V1Client(info);
  if (era === '2025-06-18 (SDK 2)') return new Client(info, { supportedProtocolVersions: ['2025-06-18'] });
  return new Client(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
}

/**
 * A client of `era` connected over Streamable HTTP to `url`, sending `headers` with every request;
 * `fetch` replaces the network (an in-process handler). The 2025 clients negotiate in initialize,
 * the 2026-07-28 one only sends requests that carry the revision.
 */
export async function connectHttp(
  era: ClientEra,
  url: string | URL,
  options: { headers?: Record<string, string>; fetch?: FetchLike; name?: string } = {},
): Promise<AnyClient> {
  const client = newClient(era, options.name);
  const init = { requestInit: { headers: options.headers ?? {} }, ...(options.fetch === undefined ? {} : { fetch: options.fetch }) };
  if (client instanceof Client) await client.connect(new StreamableHTTPClientTransport(new URL(url), init));
  else await client.connect(new V1StreamableHTTPClientTransport(new URL(url), init));
  return client;
}

/** The revision a connected client speaks: negotiated in initialize (2025), or pinned (2026-07-28). */
export function protocolOf(client: AnyClient): string | undefined {
  if (client instanceof Client) return client.getNegotiatedProtocolVersion();
  return (client.transport as { protocolVersion?: string } | undefined)?.protocolVersion;
}

/** The revision each client era must end up speaking. */
export const ERA_VERSION: Record<ClientEra, string> = {
  '2025-11-25 (SDK 1.x)': '2025-11-25',
  '2025-06-18 (SDK 2)': '2025-06-18',
  '2026-07-28 (SDK 2)': '2026-07-28',
};

/**
 * A stdio client transport over a child we spawn ourselves, like the SDK's StdioClientTransport,
 * but keeping every byte the server writes to stdout so tests can check it is protocol only.
 */
export class RecordingStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  stdout = '';
  stderr = '';
  exited!: Promise<number | null>;
  private proc?: ChildProcessWithoutNullStreams;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly spec: { command: string; args: string[]; env: NodeJS.ProcessEnv; cwd?: string }) {}

  async start(): Promise<void> {
    const proc = spawn(this.spec.command, this.spec.args, { env: this.spec.env, cwd: this.spec.cwd, stdio: 'pipe' });
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
    void this.exited.then(() => this.onclose?.());
    proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      this.stdout += d.toString();
      this.buffer.append(d);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (err) {
          this.onerror?.(err as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  /** The server process's id, once started. */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.proc?.stdin.write(serializeMessage(message));
  }

  /** Ends stdin like a client closing the session; kills the child if it lingers. */
  async close(): Promise<void> {
    if (!this.proc) return;
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc?.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** tools/call through the client's request(), so a test sees every result as the server sent it. */
export async function callTool(client: AnyClient, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const params = { name, arguments: args };
  if (client instanceof Client) return client.request({ method: 'tools/call', params });
  return (await client.request({ method: 'tools/call', params }, V1CallToolResultSchema)) as CallToolResult;
}

/** tools/call as a host's code calls it (`client.callTool()`): the SDK checks a result against the tool's output schema. */
export async function hostCallTool(client: AnyClient, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export const structured = <T = Record<string, unknown>>(r: CallToolResult): T => r.structuredContent as T;
/**
 * The problem object of an error result: its JSON text block. Error results carry no structured
 * content (an SDK 1.x client would check that against the output schema and throw).
 */
export function problem<T = Record<string, unknown>>(r: CallToolResult): T {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  expect(r.structuredContent, 'an error result carries no structuredContent').toBeUndefined();
  for (const c of r.content ?? []) {
    if (c.type !== 'text' || !c.text.startsWith('{')) continue;
    const parsed = JSON.parse(c.text) as { code?: unknown };
    if (typeof parsed.code === 'string') return parsed as T;
  }
  throw new Error(`no problem JSON in ${JSON.stringify(r.content)}`);
}

export const text = (r: CallToolResult): string => (r.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

export interface DesktopServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The claude_desktop_config.json snippets of README's "Use from an agent" section, in order. */
export function readmeMcpSnippets(readmePath = 'README.md'): DesktopServerSpec[] {
  const readme = readFileSync(readmePath, 'utf8');
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.includes('"mcpServers"'));
  return blocks.map((b) => (JSON.parse(b) as { mcpServers: { aisle: DesktopServerSpec } }).mcpServers.aisle);
}
