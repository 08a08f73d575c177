import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpServer,
  type McpServerFactory,
  ProtocolError,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import { createInProcessApi } from '../../mcp/in-process-api.js';
import { buildMcpServer, type McpServerOptions } from '../../mcp/server.js';
import { scopeOfMessage } from '../../mcp/tool-scopes.js';
import { checkTokenScope, principalOf } from '../auth.js';

export interface McpHttpOptions {
  /** Origins allowed besides none at all (non-browser clients send no Origin). */
  allowedOrigins: readonly string[];
  /** Host header values answered: `name` (any port) or `name:port`. */
  allowedHosts: readonly string[];
}

/** Without configuration (tests, embedding apps): loopback hosts, no browser origins. */
export const LOCAL_ONLY_MCP: McpHttpOptions = { allowedOrigins: [], allowedHosts: ['localhost', '127.0.0.1', '[::1]'] };

/**
 * The headers the SDK reads; the others (auth, Origin, Host) were checked before it runs. A
 * 2026-07-28 request must repeat its method and name in `Mcp-Method` and `Mcp-Name` (and tool
 * arguments a schema marks in `Mcp-Param-*`): the SDK refuses a request whose headers and body disagree.
 */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id', 'mcp-method', 'mcp-name'];
const isTransportHeader = (name: string) => TRANSPORT_HEADERS.includes(name) || name.startsWith('mcp-param-');

/** `name` or `name:port`, name a DNS name or a bracketed IPv6 literal; nothing a URL parser would reinterpret. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i;

function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  const name = host === undefined ? undefined : HOST_HEADER.exec(host)?.[1];
  if (host === undefined || name === undefined) return false;
  return allowed.some((a) => a.toLowerCase() === host.toLowerCase() || a.toLowerCase() === name.toLowerCase());
}

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
const isLoopbackIp = (address: string) => /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) || address === '::1' || address.startsWith('::ffff:127.');

/** `http(s)://localhost|127.x.y.z|[::1]` on any port, written as a bare origin (no path, no user info). */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase().replace(/\/$/, '')) return false;
  return LOOPBACK_NAMES.has(url.hostname) || isLoopbackIp(url.hostname);
}

/**
 * Whether this server listens on a loopback address only. Then a page on a loopback origin (a
 * local inspector on http://localhost:6274) runs on this machine like any local client, so it may
 * call /mcp from any port; the MCP conformance suite's DNS-rebinding scenario expects exactly that.
 */
function listensOnLoopback(req: FastifyRequest): boolean {
  const address = req.server.server.address();
  return address !== null && typeof address === 'object' && isLoopbackIp(address.address);
}

/**
 * DNS rebinding and cross-site calls: a browser always names the page's origin, and a rebound
 * name arrives as the Host. Non-browser clients send no Origin and pass.
 */
function checkOriginAndHost(req: FastifyRequest, options: McpHttpOptions): void {
  const origin = req.headers.origin;
  const allowed = (o: string) => options.allowedOrigins.some((a) => a.toLowerCase() === o.toLowerCase()) || (isLoopbackOrigin(o) && listensOnLoopback(req));
  if (origin !== undefined && !allowed(origin)) {
    throw new AppError('origin_not_allowed', `Origin ${origin.slice(0, 200)} may not call /mcp. The operator can allow it with AISLE_MCP_ALLOWED_ORIGINS.`);
  }
  if (!hostAllowed(req.headers.host, options.allowedHosts)) {
    throw new AppError(
      'host_not_allowed',
      `Host ${req.headers.host?.slice(0, 200) ?? '(none)'} is not served at /mcp. The operator can allow it with AISLE_MCP_ALLOWED_HOSTS.`,
    );
  }
}

function toWebRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value !== 'string' || !isTransportHeader(name)) continue;
    // Node accepts some bytes the Fetch Headers class refuses; such a header counts as absent.
    try {
      headers.set(name, value);
    } catch {
      // left out
    }
  }
  // The transport reads only headers and body; the URL is for its request info.
  return new Request('http://localhost/mcp', { method: req.method, headers });
}

/**
 * Through the reply, not around it: the onSend hooks add x-request-id and the request log sees the
 * status. An event stream (a 2026-07-28 `subscriptions/listen`, or a tool that reports progress) is
 * passed on as it comes; Aisle's own answers are JSON.
 */
async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => void reply.header(name, value));
  if (response.body !== null && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    reply.removeHeader('content-length');
    return reply.send(Readable.fromWeb(response.body as NodeReadableStream));
  }
  const text = await response.text();
  return reply.send(text === '' ? undefined : text);
}

/**
 * JSON-RPC batch arrays (MCP 2025-03-26; removed from 2025-06-18 on) would run up to a hundred
 * tool calls for one rate-limit unit: refused as an invalid request, the JSON-RPC way.
 */
function refuseBatch(reply: FastifyReply): FastifyReply {
  const message = 'JSON-RPC batches are not accepted: send one message per POST (MCP removed batching in 2025-06-18).';
  return reply
    .code(400)
    .type('application/json')
    .send({ jsonrpc: '2.0', id: null, error: { code: -32600, message } });
}

/** What the per-request server is built with: the caller's in-process API, its log and request id. */
type ServerParts = Parameters<typeof buildMcpServer>;

/**
 * MCP over Streamable HTTP, stateless, on both protocol eras (docs/mcp.md). The route's guard has
 * checked Origin and Host before the key was looked up; the auth hook has authenticated the key
 * and charged one rate-limit unit (scope `any`: each tool checks its own scope). Every request gets
 * a new server bound to its principal, so nothing is shared between callers. A 2026-07-28 request
 * (its `_meta` names the revision) goes to the SDK's handler; a 2025 one (initialize, then calls
 * without a session) to a transport of its own per request. Answers are JSON: Aisle's tools send
 * no notifications. GET and DELETE get 405 from the not-found handler, which is what the
 * transport specifies for a server without sessions or server-initiated messages.
 */
export const mcpRoutes: FastifyPluginAsync<{ core: Core; options: McpHttpOptions; server?: Pick<McpServerOptions, 'extension' | 'onToolCall'> }> = async (
  app,
  { core, options, server: serverOptions },
) => {
  // The SDK's factory gets the web Request it was handed; this finds the Fastify request's parts by it.
  const parts = new WeakMap<Request, ServerParts>();
  const factory: McpServerFactory = ({ requestInfo }) => {
    const found = requestInfo === undefined ? undefined : parts.get(requestInfo);
    if (found === undefined) throw new Error('MCP request without its caller');
    return buildMcpServer(...found);
  };
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    // It reports the requests it refuses (a caller's mistake: headers and body disagree, an
    // unsupported revision) as well as its own failures.
    onerror: (err) =>
      err instanceof ProtocolError || err.message.startsWith('Rejected inbound request')
        ? app.log.debug({ err }, 'MCP request refused')
        : app.log.error({ err }, 'MCP request failed'),
  });
  app.addHook('onClose', () => modern.close());

  app.post(
    '/mcp',
    {
      config: { scope: 'any', guard: (req) => checkOriginAndHost(req, options) },
      schema: { hide: true },
    },
    async (req, reply) => {
      // One message per POST, so one POST is at most one tool call and costs what its REST twin costs.
      if (Array.isArray(req.body)) return refuseBatch(reply);
      // An OAuth token calling a tool outside its grant gets the HTTP scope challenge its client
      // steps up from (docs/oauth.md); a key gets the tool's insufficient_scope result as before.
      const needed = scopeOfMessage(req.body);
      if (needed !== undefined) checkTokenScope(core, principalOf(req), needed, 'mcp');
      const request = toWebRequest(req);
      const api = createInProcessApi(core, { principal: principalOf(req) });
      parts.set(request, [api, { logger: req.log, requestId: () => String(req.id), ...serverOptions }]);
      if (await isLegacyRequest(request, req.body)) return sendWebResponse(reply, await serveLegacy(factory, request, req.body));
      return sendWebResponse(reply, await modern.fetch(request, { parsedBody: req.body }));
    },
  );
};

/** A 2025-era message: a fresh server and transport for this one request, answered as JSON. */
async function serveLegacy(factory: McpServerFactory, request: Request, parsedBody: unknown): Promise<Response> {
  const server = (await factory({ era: 'legacy', requestInfo: request })) as McpServer;
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}
