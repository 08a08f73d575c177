import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Core } from '../../core/index.js';
import { KeyIdParamsSchema } from '../../core/schemas/keys.js';
import { KeyPolicySchema, PolicyFieldsSchema, PolicySchema } from '../../core/schemas/policy.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const scope = 'keys:manage' as const;
const tags = ['policy'];

/** Publisher policy (docs/policy.md): the account's, and each key's fields over it. */
export const policyRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    '/policy',
    {
      config: { scope },
      schema: { tags, summary: "Get the account's publisher policy", response: { 200: PolicySchema, ...errorResponses() } },
    },
    (req) => core.policy.getAccount(principalOf(req)),
  );

  app.put(
    '/policy',
    {
      config: { scope },
      schema: {
        tags,
        summary: "Replace the account's publisher policy (a field left out is no restriction)",
        body: PolicyFieldsSchema,
        response: { 200: PolicySchema, ...errorResponses(400, 503) },
      },
    },
    (req) => core.policy.putAccount(principalOf(req), req.body),
  );

  app.get(
    '/keys/:key_id/policy',
    {
      config: { scope },
      schema: {
        tags,
        summary: "Get a key's policy: the fields it sets, and what its searches get",
        params: KeyIdParamsSchema,
        response: { 200: KeyPolicySchema, ...errorResponses(404) },
      },
    },
    (req) => core.policy.getKey(principalOf(req), req.params.key_id),
  );

  app.put(
    '/keys/:key_id/policy',
    {
      config: { scope },
      schema: {
        tags,
        summary: "Replace a key's policy fields (a field left out is the account's; null lifts the account's limit)",
        params: KeyIdParamsSchema,
        body: PolicyFieldsSchema,
        response: { 200: KeyPolicySchema, ...errorResponses(400, 404, 503) },
      },
    },
    (req) => core.policy.putKey(principalOf(req), req.params.key_id, req.body),
  );
};
