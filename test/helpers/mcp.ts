import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { expect } from 'vitest';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

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
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
}

export const structured = <T = Record<string, unknown>>(r: CallToolResult): T => r.structuredContent as T;
/**
 * The problem object of an error result: its JSON text block. Error results carry no structured
 * content (an SDK 1.x client would check that against the output schema and throw).
 */
export function problem<T = Record<string, unknown>>(r: CallToolResult): T {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  expect(r.structuredContent, 'an error result carries no structuredContent').toBeUndefined();
  for (const c of r.content) {
    if (c.type !== 'text' || !c.text.startsWith('{')) continue;
    const parsed = JSON.parse(c.text) as { code?: unknown };
    if (typeof parsed.code === 'string') return parsed as T;
  }
  throw new Error(`no problem JSON in ${JSON.stringify(r.content)}`);
}

export const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

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
