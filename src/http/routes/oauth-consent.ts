import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { consoleAssets } from '../../console/assets.js';
import type { Core } from '../../core/index.js';
import type { AuthorizeQuery } from '../../core/oauth/authorization.js';
import { ConsentDecisionBodySchema, ConsentDescriptionSchema, ConsentRedirectSchema } from '../../core/schemas/oauth.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';
import { setConsoleHeaders } from './console.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page for a request that cannot go back to its client: no script, the console's stylesheet. */
function refusalPage(reason: string, assetVersion: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorization refused · Aisle</title><link rel="stylesheet" href="/console/assets/app.${assetVersion}.css"></head>
<body><main class="signin"><h1>This app cannot be authorized</h1>
<p class="error" role="alert">${escapeHtml(reason)}</p>
<p>Nothing was shared with the app. Go back to it and connect again; if this persists, its developer must fix its request.</p>
</main></body></html>`;
}

const tags = ['console'];

/**
 * The authorization endpoint (docs/oauth.md): GET /oauth/authorize checks the request, then
 * serves the console's page, which shows the consent view (src/console/ui/consent.tsx) after
 * sign-in. The page reads the request through console-only JSON routes (session cookie, CSRF on
 * the decision) that answer where the browser goes next. Nothing is kept between them: the
 * query string is the pending request, and every step checks it again.
 */
export const oauthConsentRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.addHook('onSend', async (_request, reply) => setConsoleHeaders(reply, core));

  app.get('/oauth/authorize', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const checked = await core.oauth.authorizations.check(req.query as AuthorizeQuery);
    reply.header('cache-control', 'no-store');
    if (checked.kind === 'redirect') return reply.redirect(checked.url, 302);
    const { html, version } = await consoleAssets();
    reply.type('text/html; charset=utf-8');
    return checked.kind === 'invalid' ? reply.code(400).send(refusalPage(checked.reason, version)) : reply.send(html);
  });

  app.get('/console/oauth/authorize', {
    config: { scope: 'any', consoleOnly: true },
    schema: { hide: true, tags, response: { 200: ConsentDescriptionSchema, ...errorResponses(400) } },
  }, async (req, reply) => reply.header('cache-control', 'no-store').send(await core.oauth.authorizations.describe(principalOf(req), req.query as AuthorizeQuery)));

  app.post('/console/oauth/authorize', {
    config: { scope: 'any', consoleOnly: true },
    schema: { hide: true, tags, body: ConsentDecisionBodySchema, response: { 200: ConsentRedirectSchema, ...errorResponses(400) } },
  }, async (req, reply) =>
    reply.header('cache-control', 'no-store').send(await core.oauth.authorizations.decide(principalOf(req), req.query as AuthorizeQuery, req.body.decision)));
};
