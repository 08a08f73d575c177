import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';

/**
 * UCP search pagination (docs/commerce.md, "Pagination"). A cursor carries the session and the
 * products already shown: the next page is the same search with those left out, in the same
 * session, so it continues the ranking instead of repeating it. It also carries a digest of the
 * query and filters, so a cursor cannot continue a different search. Binary, then base64url:
 * version byte, 16-byte session, 8-byte digest, 16 bytes per shown product.
 */
export interface SearchCursor {
  sessionId: string;
  shown: string[];
}

const VERSION = 1;
const HEAD = 1 + 16 + 8;
/** Most products a paginated search reaches (ten pages of ten). */
export const MAX_PAGINATED_PRODUCTS = 100;

const uuidBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex');
const uuidOf = (bytes: Buffer) => {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** What a cursor is bound to: the query and everything that narrows it. */
export const searchDigest = (what: unknown): Buffer => createHash('sha256').update(JSON.stringify(what)).digest().subarray(0, 8);

export function encodeCursor(cursor: SearchCursor, digest: Buffer): string {
  const ids = cursor.shown.filter(isUuid);
  const buf = Buffer.alloc(HEAD + 16 * ids.length);
  buf[0] = VERSION;
  uuidBytes(cursor.sessionId).copy(buf, 1);
  digest.copy(buf, 17);
  ids.forEach((id, i) => {
    uuidBytes(id).copy(buf, HEAD + 16 * i);
  });
  return buf.toString('base64url');
}

const invalid = (message: string) => new AppError('validation_failed', `pagination.cursor ${message}.`, { errors: [{ path: 'pagination.cursor', message }] });

/** The cursor, or 400 validation_failed when it is not one of ours or belongs to another search. */
export function decodeCursor(text: string, digest: Buffer): SearchCursor {
  const buf = /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url') : Buffer.alloc(0);
  if (buf.length < HEAD || buf[0] !== VERSION || (buf.length - HEAD) % 16 !== 0) {
    throw invalid('is not a cursor this server issued; send the pagination.cursor of the previous page as it came');
  }
  if (!buf.subarray(17, HEAD).equals(digest)) {
    throw invalid('belongs to a search with another query, context or filters; paginate with the same request');
  }
  const shown: string[] = [];
  for (let at = HEAD; at < buf.length; at += 16) shown.push(uuidOf(buf.subarray(at, at + 16)));
  return { sessionId: uuidOf(buf.subarray(1, 17)), shown };
}
