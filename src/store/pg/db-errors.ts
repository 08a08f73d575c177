import pg from 'pg';
import { AppError } from '../../core/errors.js';

/** What a client is told to wait before retrying when the database was unavailable (docs/api.md). */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs that say the database could not do the work in time or at all, not that the
 * statement was wrong: a retry later may succeed.
 */
const UNAVAILABLE_STATES = new Map<string, string>([
  ['57014', 'statement timeout'], // query_canceled: statement_timeout (or an operator's cancel)
  ['55P03', 'lock timeout'], // lock_not_available
  ['25P03', 'idle-in-transaction timeout'], // the server ended a session idle inside a transaction
  ['57P01', 'server shutting down'], // admin_shutdown
  ['57P02', 'server crashed'], // crash_shutdown
  ['57P03', 'server starting or stopping'], // cannot_connect_now
  ['53300', 'too many connections'],
]);

/** Node's socket errors: the server is unreachable or the connection broke. */
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The driver's own failures carry no code, only these messages (pg 8.23, pg-pool 3.14; the
 * timeout tests in test/store/pg/db-timeouts.test.ts fail if an upgrade changes them).
 */
const DRIVER_MESSAGES: [RegExp, string][] = [
  [/^timeout exceeded when trying to connect$/, 'no pool connection in time'], // pool: connectionTimeoutMillis while waiting or connecting
  [/^Connection terminated due to connection timeout$/, 'connect timeout'],
  [/^Query read timeout$/, 'no answer in time'], // client: query_timeout
  [/^Connection terminated/, 'connection lost'],
  [/is not queryable$/, 'connection lost'],
  [/^Cannot use a pool after calling end on the pool$/, 'pool closed'],
];

/** Why the database was unavailable, or null when the error is something else (a constraint, bad SQL). */
function unavailableReason(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_STATES.has(code)) return UNAVAILABLE_STATES.get(code)!;
    if (code.startsWith('08')) return 'connection failure'; // class 08: connection exception
    if (SOCKET_ERRORS.has(code)) return `connection failure (${code})`;
  }
  for (const [pattern, reason] of DRIVER_MESSAGES) if (pattern.test(err.message)) return reason;
  return null;
}

/**
 * The database could not answer in time or at all: a 503 `unavailable` with Retry-After, the
 * driver's error kept as the cause (logged, never sent). Null for every other error, which is
 * passed on as it was.
 */
export function databaseUnavailable(err: unknown): AppError | null {
  if (err instanceof AppError) return err.code === 'unavailable' ? err : null;
  const reason = unavailableReason(err);
  if (reason === null) return null;
  return new AppError('unavailable', `The database is unavailable: ${reason} (${(err as Error).message}).`, {
    cause: err,
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}

/**
 * True when the failure happened on our side of the connection (a client timeout, a broken
 * socket): the connection is then in an unknown state, so it is dropped without a ROLLBACK,
 * which would only wait behind the statement that never answered.
 */
export function connectionUnusable(err: unknown): boolean {
  const cause = err instanceof AppError ? err.cause : err;
  return !(cause instanceof pg.DatabaseError) && unavailableReason(cause) !== null;
}

/** True for an error that means the database is unavailable (see databaseUnavailable). */
export const isDatabaseUnavailable = (err: unknown): boolean => err instanceof AppError && err.code === 'unavailable';
