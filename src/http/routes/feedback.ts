import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Core } from '../../core/index.js';
import { FeedbackRequestSchema, FeedbackSchema } from '../../core/schemas/feedback.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

/** POST /feedback (docs/clicks.md#feedback). */
export const feedbackRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.post(
    '/feedback',
    {
      config: { scope: 'events:write' },
      schema: {
        tags: ['feedback'],
        summary: 'Say whether a result fit what the user wanted; "not relevant" votes demote it for similar queries',
        body: FeedbackRequestSchema,
        response: { 201: FeedbackSchema, ...errorResponses(400, 404, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(await core.feedback.submit(principalOf(req), req.body)),
  );
};
