import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { PageCursor } from '../shared-ports.js';

const MAX_TIMESTAMP = Date.UTC(9999, 11, 31);

/** Cursors are opaque to callers: base64url of the last item's sort key. */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`).toString('base64url');
}

/** Throws validation_failed for a cursor this server did not issue. */
export function decodeCursor(raw: string): PageCursor {
  const [time, id, extra] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(time ?? '');
  const t = createdAt.getTime();
  // Only timestamps this API could have written (PostgreSQL rejects years past 9999 or before 1 AD).
  if (extra !== undefined || id === undefined || !isUuid(id) || !(t >= 0 && t < MAX_TIMESTAMP)) {
    throw new AppError('validation_failed', 'The cursor is not one this API issued.', {
      errors: [{ path: 'query.cursor', message: 'unrecognised cursor' }],
    });
  }
  return { createdAt, id };
}
