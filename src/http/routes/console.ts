import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { consoleAssets } from '../../console/assets.js';
import { AppError } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import {
  ConsoleAssetParamsSchema,
  ConsoleOverviewQuerySchema,
  ConsoleOverviewSchema,
  type ConsoleSessionInfo,
  ConsoleSessionInfoSchema,
  ConsoleSignInBodySchema,
  PlaygroundRequestSchema,
  PlaygroundResponseSchema,
} from '../../core/schemas/console.js';
import { type ConsoleSession, csrfMatches } from '../../core/sessions/console-sessions.js';
import { CSRF_HEADER, principalOf, SESSION_COOKIE } from '../auth.js';
import { errorResponses } from '../openapi.js';

/**
 * The console's policy: our own script and stylesheet only, JSON from our own origin, images
 * from the catalog's image origins (product cards in the playground), no framing, no plugins.
 */
export async function setConsoleHeaders(reply: FastifyReply, core: Core): Promise<void> {
  // Without the catalog's origins the policy is only stricter (product images stay placeholders).
  const origins = await core.imageOrigins().catch(() => [] as string[]);
  const images = ["'self'", ...origins].join(' ');
  reply.header(
    'content-security-policy',
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${images}; connect-src 'self'; ` +
      `form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
}

const sessionInfo = (s: ConsoleSession): ConsoleSessionInfo => ({
  account_id: s.principal.accountId,
  key: s.key,
  scopes: [...s.principal.scopes],
  csrf_token: s.csrfToken,
  expires_at: s.expiresAt.toISOString(),
});

function sessionOf(request: FastifyRequest): ConsoleSession {
  if (request.consoleSession === null) throw new Error('sessionOf() on a route a console session did not authenticate');
  return request.consoleSession;
}

const cookieOptions = (request: FastifyRequest) => ({ path: '/', httpOnly: true, sameSite: 'strict' as const, secure: request.protocol === 'https' });

const tags = ['console'];

/**
 * The console (docs/console.md): its page and assets at `/`, and the few operations the public
 * API has no form for: sign-in, sign-out, the overview and the playground. Everything else the
 * console does goes through the /v1 routes with the session cookie. Hidden from the OpenAPI
 * document: these are the console's, not an integration's.
 */
export const consoleRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.addHook('onSend', async (_request, reply) => setConsoleHeaders(reply, core));

  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_req, reply) => {
    const { html } = await consoleAssets();
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  });

  app.get('/console/assets/:file', { config: { public: true }, schema: { hide: true, params: ConsoleAssetParamsSchema } }, async (req, reply) => {
    const a = await consoleAssets();
    const asset =
      req.params.file === `app.${a.version}.js`
        ? { type: 'text/javascript; charset=utf-8', body: a.js }
        : req.params.file === `app.${a.version}.css`
          ? { type: 'text/css; charset=utf-8', body: a.css }
          : null;
    // An old version's asset after a restart is gone too: the page must be reloaded.
    if (asset === null) throw new AppError('not_found', 'No such console asset; reload the console page.');
    return reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable').send(asset.body);
  });

  app.post(
    '/console/session',
    {
      config: { public: true },
      schema: { hide: true, tags, body: ConsoleSignInBodySchema, response: { 201: ConsoleSessionInfoSchema, ...errorResponses(400) } },
    },
    async (req, reply) => {
      const session = await core.consoleSessions.signIn(req.body.api_key);
      // A session this browser held before ends here: one browser, one live session.
      await core.consoleSessions.signOut(req.cookies[SESSION_COOKIE]);
      reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions(req), expires: session.expiresAt });
      return reply.code(201).header('cache-control', 'no-store').send(sessionInfo(session));
    },
  );

  app.get(
    '/console/session',
    {
      config: { scope: 'any', consoleOnly: true },
      schema: { hide: true, tags, response: { 200: ConsoleSessionInfoSchema, ...errorResponses() } },
    },
    async (req, reply) => reply.header('cache-control', 'no-store').send(sessionInfo(sessionOf(req))),
  );

  // Public, so that signing out never waits on the key's rate limit or fails with it: it needs
  // only the session's own CSRF token, and ending a session that has already ended is a no-op.
  app.delete(
    '/console/session',
    {
      config: { public: true },
      schema: { hide: true, tags, response: { 204: z.null(), ...errorResponses(403) } },
    },
    async (req, reply) => {
      const token = req.cookies[SESSION_COOKIE];
      const session = await core.consoleSessions.resolve(token);
      const sent = req.headers[CSRF_HEADER];
      if (session !== null && !csrfMatches(session, typeof sent === 'string' ? sent : undefined)) {
        throw new AppError('csrf_failed', `Send the session's CSRF token in the ${CSRF_HEADER} header.`);
      }
      await core.consoleSessions.signOut(token);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(req));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/console/overview',
    {
      config: { scope: 'analytics:read', consoleOnly: true },
      schema: { hide: true, tags, querystring: ConsoleOverviewQuerySchema, response: { 200: ConsoleOverviewSchema, ...errorResponses(400) } },
    },
    (req) => core.analytics.overview(principalOf(req), req.query.range, req.query.livemode),
  );

  app.post(
    '/console/playground',
    {
      config: { scope: 'search', consoleOnly: true },
      schema: { hide: true, tags, body: PlaygroundRequestSchema, response: { 200: PlaygroundResponseSchema, ...errorResponses(400, 422) } },
    },
    (req) => core.search().preview(principalOf(req), req.body),
  );
};
