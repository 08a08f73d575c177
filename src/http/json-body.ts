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

/** A value still to check: its key and its parent's frame, from which its path is built only if it fails. */
interface Frame {
  value: unknown;
  key: string | number;
  parent: Frame | null;
  depth: number;
}

const pathOf = (frame: Frame): string => (frame.parent === null ? String(frame.key) : `${pathOf(frame.parent)}.${frame.key}`);

/** Strings and objects can hold what is refused; other JSON values cannot. */
const mayHoldUnstorable = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'object' && v !== null);

/**
 * PostgreSQL text cannot hold U+0000, and an unpaired surrogate would be stored as U+FFFD:
 * refuse both at the edge instead of failing (or silently changing the text) at write time.
 * No request shape nests deeper than a few levels, so deep nesting (which would overflow
 * recursive validators) is refused too. Iterative on purpose. Returns the first offending path.
 * Numbers, booleans and nulls are never queued, array elements are read by index and paths are
 * built only for the answer, so a body of 100,000 numbers costs no allocation per element.
 */
function findUnstorableString(root: unknown, rootPath: string): string | null {
  const stack: Frame[] = [{ value: root, key: rootPath, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value, depth } = frame;
    if (typeof value === 'string') {
      if (value.includes('\u0000') || LONE_SURROGATE.test(value)) return pathOf(frame);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) return pathOf(frame);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (mayHoldUnstorable(value[i])) stack.push({ value: value[i], key: i, parent: frame, depth: depth + 1 });
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000') || LONE_SURROGATE.test(k)) return pathOf(frame);
      if (mayHoldUnstorable(v)) stack.push({ value: v, key: k, parent: frame, depth: depth + 1 });
    }
  }
  return null;
}
