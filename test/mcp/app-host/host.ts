/**
 * A minimal MCP Apps host, as a chat client embeds a view: an MCP client over Streamable HTTP
 * (same origin; the test server forwards /mcp to Aisle), the view's HTML in a sandboxed iframe
 * under the CSP its resource declares, and the ext-apps AppBridge between them. It records what
 * the view asks of the host (links to open, tool calls) for the test to read.
 */
import { AppBridge, PostMessageTransport, type HostOptions } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

interface RunOptions {
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

async function run(options: RunOptions): Promise<void> {
  const client = new Client({ name: 'aisle test host', version: '1.0.0' });
  const headers = { authorization: `Bearer ${options.apiKey}` };
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.origin), { requestInit: { headers } }));
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

  const hostContext: NonNullable<HostOptions['hostContext']> = {
    theme: options.theme,
    styles: { variables: options.variables },
    displayMode: 'inline',
    platform: 'web',
  };
  const bridge = new AppBridge(null, { name: 'aisle test host', version: '1.0.0' }, { openLinks: {}, serverTools: {}, logging: {} }, { hostContext });
  bridge.onopenlink = async ({ url }) => {
    state.opened.push(url);
    return {};
  };
  bridge.oncalltool = async (params) => {
    const result = await client.request({ method: 'tools/call', params }, CallToolResultSchema);
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
  const result = await client.request({ method: 'tools/call', params: { name: 'search_products', arguments: options.arguments } }, CallToolResultSchema);
  state.result = result;
  await bridge.sendToolInput({ arguments: options.arguments });
  state.resultSentAt = performance.timeOrigin + performance.now();
  await bridge.sendToolResult(result);
}

Object.assign(window, { aisleHost: { run, state } });
