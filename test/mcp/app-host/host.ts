/**
 * A minimal MCP Apps host, as a chat client embeds a view: an MCP client over Streamable HTTP
 * (same origin; the test server forwards /mcp to Aisle), the view's HTML in a sandboxed iframe
 * under the CSP its resource declares, and the ext-apps AppBridge between them. It records what
 * the view asks of the host (links to open, tool calls) for the test to read. The client speaks
 * 2025-11-25 (SDK 1.x, as most hosts ship today) or 2026-07-28 (SDK 2).
 */
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, type HostOptions, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema as V1CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

type HostContext = NonNullable<HostOptions['hostContext']>;

interface RunOptions {
  era: '2025-11-25' | '2026-07-28';
  apiKey: string;
  arguments: Record<string, unknown>;
  theme: 'light' | 'dark';
  variables: Record<string, string>;
}

interface HostState {
  result: CallToolResult | null;
  opened: string[];
  toolCalls: { name: string; arguments: Record<string, unknown> | undefined; result: CallToolResult }[];
  /** performance.timeOrigin + performance.now() just before the tool result went to the view. */
  resultSentAt: number;
  resourceBytes: number;
}

const state: HostState = { result: null, opened: [], toolCalls: [], resultSentAt: 0, resourceBytes: 0 };

function cspOf(csp: { resourceDomains?: string[] } | undefined): string {
  const images = ['data:', ...(csp?.resourceDomains ?? [])].join(' ');
  return `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src ${images}; connect-src 'none'`;
}

/** The host's MCP client: what the test host needs of it, on either SDK. */
interface HostClient {
  listTools(): Promise<{ tools: { name: string; _meta?: Record<string, unknown> | undefined }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> | undefined }): Promise<CallToolResult>;
}

async function connect(era: RunOptions['era'], apiKey: string): Promise<HostClient> {
  const url = new URL('/mcp', location.origin);
  const requestInit = { headers: { authorization: `Bearer ${apiKey}` } };
  const info = { name: 'aisle test host', version: '1.0.0' };
  if (era === '2026-07-28') {
    const client = new Client(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
    return {
      listTools: () => client.listTools(),
      readResource: (p) => client.readResource(p),
      callTool: (params) => client.request({ method: 'tools/call', params }),
    };
  }
  const client = new V1Client(info);
  await client.connect(new V1StreamableHTTPClientTransport(url, { requestInit }));
  return {
    listTools: () => client.listTools(),
    readResource: (p) => client.readResource(p),
    callTool: async (params) => (await client.request({ method: 'tools/call', params }, V1CallToolResultSchema)) as CallToolResult,
  };
}

async function run(options: RunOptions): Promise<void> {
  const client = await connect(options.era, options.apiKey);
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === 'search_products')!;
  const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (!uri) throw new Error('search_products has no _meta.ui.resourceUri');
  const resource = (await client.readResource({ uri })).contents[0] as {
    text: string;
    mimeType: string;
    _meta?: { ui?: { csp?: { resourceDomains?: string[] } } };
  };
  if (resource.mimeType !== 'text/html;profile=mcp-app') throw new Error(`unexpected MIME type ${resource.mimeType}`);
  state.resourceBytes = new TextEncoder().encode(resource.text).length;

  const iframe = document.createElement('iframe');
  iframe.sandbox.add('allow-scripts');
  iframe.title = 'Aisle products';
  iframe.style.cssText = 'width:100%;border:0;display:block;height:200px';
  iframe.srcdoc = resource.text.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${cspOf(resource._meta?.ui?.csp)}">`);
  document.getElementById('chat')!.append(iframe);

  const variables = options.variables as NonNullable<NonNullable<HostContext['styles']>['variables']>;
  const hostContext: HostContext = { theme: options.theme, styles: { variables }, displayMode: 'inline', platform: 'web' };
  const bridge = new AppBridge(null, { name: 'aisle test host', version: '1.0.0' }, { openLinks: {}, serverTools: {}, logging: {} }, { hostContext });
  bridge.onopenlink = async ({ url }) => {
    state.opened.push(url);
    return {};
  };
  bridge.oncalltool = async (params) => {
    const result = await client.callTool(params);
    state.toolCalls.push({ name: params.name, arguments: params.arguments, result });
    return result;
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  await initialized;

  // What a chat client does when the model calls the tool: run it, then hand input and result to the view.
  const result = await client.callTool({ name: 'search_products', arguments: options.arguments });
  state.result = result;
  await bridge.sendToolInput({ arguments: options.arguments });
  state.resultSentAt = performance.timeOrigin + performance.now();
  await bridge.sendToolResult(result);
}

Object.assign(window, { aisleHost: { run, state } });
