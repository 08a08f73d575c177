import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import { createInProcessApi } from '../../mcp/in-process-api.js';
import { buildMcpServer } from '../../mcp/server.js';
import { principalOf } from '../auth.js';

export interface McpHttpOptions {
  /** Origins allowed besides none at all (non-browser clients send no Origin). */
  allowedOrigins: readonly string[];
  /** Host header values answered: `name` (any port) or `name:port`. */
  allowedHosts: readonly string[];
}

/** Without configuration (tests, embedding apps): loopback hosts, no browser origins. */
export const LOCAL_ONLY_MCP: McpHttpOptions = { allowedOrigins: [], allowedHosts: ['localhost', '127.0.0.1', '[::1]'] };

/** The headers the transport reads; the others (auth, Origin, Host) were checked before it runs. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

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
  for (const name of TRANSPORT_HEADERS) {
    const value = req.headers[name];
    if (typeof value !== 'string') continue;
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

/** Through the reply, not around it: the onSend hooks add x-request-id and the request log sees the status. */
async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => void reply.header(name, value));
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

/**
 * MCP over Streamable HTTP, stateless (docs/mcp.md). The route's guard has checked Origin and Host
 * before the key was looked up; the auth hook has authenticated the key and charged one
 * rate-limit unit (scope `any`: each tool checks its own scope). Every request gets a
 * new server and transport bound to its principal, so nothing is shared between callers. Answers
 * are JSON (no SSE: nothing streams), and GET/DELETE get 405 from the not-found handler, which is
 * what the transport specifies for a server without sessions or server-initiated messages.
 */
export const mcpRoutes: FastifyPluginAsync<{ core: Core; options: McpHttpOptions }> = async (app, { core, options }) => {
  app.post(
    '/mcp',
    {
      config: { scope: 'any', guard: (req) => checkOriginAndHost(req, options) },
      schema: { hide: true },
    },
    async (req, reply) => {
      // One message per POST, so one POST is at most one tool call and costs what its REST twin costs.
      if (Array.isArray(req.body)) return refuseBatch(reply);
      const api = createInProcessApi(core, { principal: principalOf(req) });
      const server = buildMcpServer(api, { logger: req.log, requestId: () => String(req.id) });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await sendWebResponse(reply, await transport.handleRequest(toWebRequest(req), { parsedBody: req.body }));
      } finally {
        await server.close();
      }
    },
  );
};
