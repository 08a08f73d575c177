import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.js';

/**
 * Replaces Fastify's JSON parser so that an empty body is "no body" (POST /keys/{id} disables
 * with or without `{}`) and a syntax error is our `invalid_json` problem.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new AppError('invalid_json', `The body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });
}
