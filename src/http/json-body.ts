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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return done(new AppError('invalid_json', `The body is not valid JSON: ${(err as Error).message}`), undefined);
    }
    const bad = findUnstorableString(value, 'body');
    if (bad !== null) {
      return done(
        new AppError('validation_failed', `${bad}: text must be well-formed Unicode without NUL characters, nested at most ${MAX_DEPTH} levels.`, {
          errors: [{ path: bad, message: 'contains a NUL character or an unpaired surrogate, or nests too deeply' }],
        }),
        undefined,
      );
    }
    done(null, value);
  });
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const MAX_DEPTH = 32;

/**
 * PostgreSQL text cannot hold U+0000, and an unpaired surrogate would be stored as U+FFFD:
 * refuse both at the edge instead of failing (or silently changing the text) at write time.
 * No request shape nests deeper than a few levels, so deep nesting (which would overflow
 * recursive validators) is refused too. Iterative on purpose. Returns the first offending path.
 */
function findUnstorableString(root: unknown, rootPath: string): string | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootPath, depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000') || LONE_SURROGATE.test(value)) return path;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) return path;
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000') || LONE_SURROGATE.test(k)) return path;
      stack.push({ value: v, path: `${path}.${k}`, depth: depth + 1 });
    }
  }
  return null;
}
