import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import { RESOURCE_NAMES } from '../../core/oauth/endpoints.js';
import type { OAuthOutcome } from '../../core/oauth/outcome.js';
import type { TokenForm } from '../../core/oauth/tokens.js';
import { classifyError } from '../problem.js';

/** OAuth requests are a few hundred bytes; client metadata a few kilobytes. */
const OAUTH_BODY_LIMIT = 16 * 1024;
const FORM = 'application/x-www-form-urlencoded';

/**
 * Form bodies (RFC 6749 §3.2): each parameter at most once, and one sent without a value counts
 * as omitted. A null-prototype object, so a parameter named `__proto__` is just a parameter.
 */
function parseForm(text: string): TokenForm {
  const form: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in form) throw new AppError('bad_request', `${name.slice(0, 50)} was sent more than once.`);
    if (value !== '') form[name] = value;
  }
  return form;
}

/** The body of a token or revocation request, which RFC 6749 and RFC 7009 send as a form. */
function formOf(request: FastifyRequest): TokenForm {
  const type = request.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith(FORM) || typeof request.body !== 'object' || request.body === null) {
    throw new AppError('unsupported_media_type', `Send the request as ${FORM}.`);
  }
  return request.body as TokenForm;
}

/** OAuth's answers are never cached (RFC 6749 §5.1), successes and errors alike. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

function sendOutcome<T>(reply: FastifyReply, outcome: OAuthOutcome<T>, status = 200): FastifyReply {
  noStore(reply);
  if (outcome.ok) return outcome.value === null ? reply.code(status).send() : reply.code(status).send(outcome.value);
  if (outcome.retryAfterSeconds !== undefined) reply.header('retry-after', String(outcome.retryAfterSeconds));
  return reply.code(outcome.status).send({ error: outcome.error, error_description: outcome.description });
}

/**
 * Every failure of these endpoints in OAuth's format (RFC 6749 §5.2) instead of problem+json:
 * a malformed request (bad JSON, wrong media type, too large) is `invalid_request` with its own
 * status, anything else `server_error` (or `temporarily_unavailable` for a 503).
 */
function registerOAuthErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request, reply) => {
    const e = classifyError(error);
    if (e.status >= 500) request.log.error({ err: e.cause ?? error }, 'OAuth request failed');
    for (const [name, value] of Object.entries(e.headers)) reply.header(name, value);
    const body =
      e.status === 503
        ? { error: 'temporarily_unavailable' }
        : e.status >= 500
          ? { error: 'server_error' }
          : { error: 'invalid_request', error_description: e.detail };
    return noStore(reply).code(e.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
  });
}

/**
 * Browser-based MCP clients call these endpoints from their own origin. Nothing here uses
 * cookies, so any origin may read the answers (the MCP SDK's discovery sends MCP-Protocol-Version,
 * which needs a preflight).
 */
function allowAnyOrigin(app: FastifyInstance, paths: readonly string[], methods: string): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
  });
  for (const path of paths) {
    app.options(path, { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', methods)
        .header('access-control-allow-headers', 'content-type, mcp-protocol-version')
        .header('access-control-max-age', '86400')
        .send(),
    );
  }
}

/** The metadata documents (RFC 8414, RFC 9728): public, read by clients before anything else. */
const metadataRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const paths = core.oauth.endpoints.wellKnownPaths;
  allowAnyOrigin(app, [paths.authorizationServer, paths.rootProtectedResource, ...RESOURCE_NAMES.map((r) => paths.protectedResource[r])], 'GET');
  const options = { config: { public: true }, schema: { hide: true } };
  const cached = (reply: FastifyReply) => reply.header('cache-control', 'public, max-age=300');
  app.get(paths.authorizationServer, options, async (_req, reply) => cached(reply).send(core.oauth.authorizationServerMetadata()));
  // The root form names the MCP resource: clients that probe it are MCP clients.
  app.get(paths.rootProtectedResource, options, async (_req, reply) => cached(reply).send(core.oauth.protectedResourceMetadata('mcp')));
  for (const resource of RESOURCE_NAMES) {
    app.get(paths.protectedResource[resource], options, async (_req, reply) => cached(reply).send(core.oauth.protectedResourceMetadata(resource)));
  }
};

/**
 * The authorization server's endpoints (docs/oauth.md): registration (RFC 7591), token
 * (RFC 6749 with PKCE and RFC 8707 resources) and revocation (RFC 7009), plus the metadata
 * documents. The authorization endpoint and its consent page are in oauth-consent.ts.
 */
export const oauthRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  await app.register(metadataRoutes, { core });
  await app.register(async (endpoints) => {
    registerOAuthErrors(endpoints);
    allowAnyOrigin(endpoints, ['/oauth/register', '/oauth/token', '/oauth/revoke'], 'POST');
    const options = { config: { public: true }, bodyLimit: OAUTH_BODY_LIMIT, schema: { hide: true } };

    // RFC 7591 registers with JSON: no form parser in this scope, so a form is a 415 before its body is read.
    endpoints.post('/oauth/register', options, async (req, reply) => sendOutcome(reply, await core.oauth.clients.register(req.body, req.ip), 201));

    // The token and revocation endpoints take forms (RFC 6749 §3.2, RFC 7009 §2.1).
    await endpoints.register(async (forms) => {
      forms.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
        try {
          done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
        } catch (err) {
          done(err as Error, undefined);
        }
      });
      forms.post('/oauth/token', options, async (req, reply) => sendOutcome(reply, await core.oauth.tokens.token(formOf(req))));
      forms.post('/oauth/revoke', options, async (req, reply) => sendOutcome(reply, await core.oauth.tokens.revoke(formOf(req))));
    });
  });
};
