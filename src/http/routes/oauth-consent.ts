import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { consoleAssets } from '../../console/assets.js';
import type { Core } from '../../core/index.js';
import type { AuthorizeQuery } from '../../core/oauth/authorization.js';
import { ConsentDecisionBodySchema, ConsentDescriptionSchema, ConsentRedirectSchema } from '../../core/schemas/oauth.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';
import { setConsoleHeaders } from './console.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page for a request Aisle refuses before any consent: no script, the console's stylesheet.
 * With `back`, a link returns the error to the client (with state and iss) once the person
 * chooses to follow it: see oauth.md on why it is not an automatic redirect.
 */
function refusalPage(reason: string, assetVersion: string, back?: string): string {
  const link =
    back === undefined
      ? ''
      : `<p><a id="return" href="${escapeHtml(back)}" rel="noreferrer">Return to ${escapeHtml(new URL(back).host)}</a> to tell the app.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorization refused · Aisle</title><link rel="stylesheet" href="/console/assets/app.${assetVersion}.css"></head>
<body><main class="signin"><h1>This app cannot be authorized</h1>
<p class="error" role="alert">${escapeHtml(reason)}</p>
<p>Nothing was shared with the app. If this persists, its developer must fix its request.</p>${link}
</main></body></html>`;
}

const tags = ['console'];

/**
 * The authorization endpoint (docs/oauth.md): GET /oauth/authorize checks the request and
 * answers an error page when it is refused (never an automatic redirect), else the console's
 * page, which shows the consent view (src/console/ui/consent.tsx) after sign-in. The page reads
 * the request through console-only JSON routes (session cookie, CSRF on the decision) that
 * answer where the browser goes next. Nothing is kept between them: the query string is the
 * pending request, and every step checks it again.
 */
export const oauthConsentRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.addHook('onSend', async (_request, reply) => setConsoleHeaders(reply, core));

  app.get('/oauth/authorize', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const checked = await core.oauth.authorizations.check(req.query as AuthorizeQuery);
    const { html, version } = await consoleAssets();
    reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
    if (checked.kind === 'invalid') return reply.code(400).send(refusalPage(checked.reason, version));
    if (checked.kind === 'redirect') return reply.code(400).send(refusalPage(`${checked.error}: ${checked.description}`, version, checked.url));
    return reply.send(html);
  });

  app.get(
    '/console/oauth/authorize',
    {
      config: { scope: 'any', consoleOnly: true },
      schema: { hide: true, tags, response: { 200: ConsentDescriptionSchema, ...errorResponses(400) } },
    },
    async (req, reply) =>
      reply.header('cache-control', 'no-store').send(await core.oauth.authorizations.describe(principalOf(req), req.query as AuthorizeQuery)),
  );

  app.post(
    '/console/oauth/authorize',
    {
      config: { scope: 'any', consoleOnly: true },
      schema: { hide: true, tags, body: ConsentDecisionBodySchema, response: { 200: ConsentRedirectSchema, ...errorResponses(400) } },
    },
    async (req, reply) =>
      reply.header('cache-control', 'no-store').send(await core.oauth.authorizations.decide(principalOf(req), req.query as AuthorizeQuery, req.body.decision)),
  );
};
