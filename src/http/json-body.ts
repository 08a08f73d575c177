import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.js';

/**
 * Replaces Fastify's parsers with one for JSON, so that an empty body is "no body" (POST /keys/{id} disables
 * with or without `{}`) and a syntax error is our `invalid_json` problem.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // Fastify also parses text/plain by default; Aisle speaks JSON only, anything else is 415.
  app.removeAllContentTypeParsers();
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
