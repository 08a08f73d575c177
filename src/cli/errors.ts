import { inspect } from 'node:util';
import { FeedFormatError } from '../catalog/files/types.js';
import { ConfigError } from '../config.js';
import { CatalogModelMismatchError } from '../core/catalog/errors.js';
import { AppError } from '../core/errors.js';
import { LockHeldError } from '../store/pid-lock.js';

/**
 * The exit codes of the operator tools (sysexits.h), documented in docs/development.md. 1 is a
 * failure the tool did not foresee (a bug, or a tool's own documented "nothing done", such as
 * an import with no valid row).
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  /** EX_USAGE: an unknown flag, a missing or malformed argument. */
  usage: 64,
  /** EX_DATAERR: the input exists but cannot be used (malformed feed, bad JSON, no title column). */
  dataError: 65,
  /** EX_NOINPUT: an input file is missing or unreadable. */
  noInput: 66,
  /** EX_UNAVAILABLE: a server the tool needs (the database) cannot be reached. */
  unavailable: 69,
  /** EX_CANTCREAT: an output file cannot be written. */
  cannotCreate: 73,
  /** EX_TEMPFAIL: the data directory is held by a running server; retry once it stops. */
  tempFail: 75,
  /** EX_CONFIG: the configuration (environment variables) is invalid or does not fit the data. */
  config: 78,
} as const;

/** A usage mistake: the message, then the usage, exit 64. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure the tool foresaw: its message alone is printed, no trace, and the process exits `exitCode`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the operator sees for an error: the exit code and the text for stderr. */
export interface Failure {
  exitCode: number;
  /** One line (a configuration error lists each bad variable on a line of its own). */
  message: string;
  /** Print the usage after the message. */
  showUsage: boolean;
  /** An error nobody foresaw: a bug, whose stack trace --verbose prints. */
  unexpected: boolean;
}

const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
};
/** Calls that create or change files: their failures are about an output (73), the others about an input (66). */
const WRITING_CALLS = new Set(['mkdir', 'mkdtemp', 'write', 'rename', 'unlink', 'rmdir', 'rm', 'copyfile', 'symlink', 'link']);
const NETWORK_PROBLEMS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'connection reset',
};

/** What a file system error code means, in words ("no such file or directory"). */
export const fileProblem = (code: string | undefined): string => FILE_PROBLEMS[code ?? ''] ?? code ?? 'unknown error';

const errnoOf = (err: unknown): NodeJS.ErrnoException | null =>
  err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' ? (err as NodeJS.ErrnoException) : null;

/** The first failure `err` is, in the order of the checks below; null when it is none of them. */
function knownFailure(err: unknown): Omit<Failure, 'unexpected'> | null {
  const known = (exitCode: number, message: string, showUsage = false) => ({ exitCode, message, showUsage });
  if (err instanceof UsageError) return known(EXIT.usage, err.message, true);
  if (err instanceof CliError) return known(err.exitCode, err.message);
  if (err instanceof FeedFormatError) return known(EXIT.dataError, err.message);
  if (err instanceof ConfigError || err instanceof CatalogModelMismatchError) return known(EXIT.config, err.message);
  if (err instanceof LockHeldError) return known(EXIT.tempFail, err.message);
  // The database could not answer (src/store/pg/db-errors.ts): say what its cause was where we can.
  if (err instanceof AppError && err.code === 'unavailable') return knownFailure(err.cause) ?? known(EXIT.unavailable, err.detail);
  // A caller's mistake the core rejected (an unknown account, say); a 5xx is a failure of ours.
  if (err instanceof AppError && err.status < 500) return known(EXIT.dataError, err.detail);
  const errno = errnoOf(err);
  if (errno?.code !== undefined && FILE_PROBLEMS[errno.code] !== undefined) {
    const writing = WRITING_CALLS.has(errno.syscall ?? '');
    // A call on an open file (read of a directory's descriptor) carries no path.
    const what = errno.path ?? `a file could not be ${writing ? 'written' : 'read'} (${errno.syscall ?? errno.code})`;
    return known(writing ? EXIT.cannotCreate : EXIT.noInput, `${what}: ${writing ? 'cannot write: ' : ''}${FILE_PROBLEMS[errno.code]}`);
  }
  if (errno?.code !== undefined && NETWORK_PROBLEMS[errno.code] !== undefined) {
    const { address, port } = errno as { address?: string; port?: number };
    const target = address === undefined ? 'the server' : `${address}${port === undefined ? '' : `:${port}`}`;
    return known(EXIT.unavailable, `cannot reach ${target}: ${NETWORK_PROBLEMS[errno.code]}`);
  }
  return null;
}

/**
 * Maps any error a tool throws to its exit code and message. Foreseen failures (usage, input,
 * configuration, an unreachable server) print their message; anything else is a bug, printed
 * as one line with its message (the command adds the stack trace or the advice to rerun with
 * --verbose).
 */
export function describeFailure(err: unknown): Failure {
  const known = knownFailure(err);
  if (known !== null) return { ...known, unexpected: false };
  const what = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err);
  return { exitCode: EXIT.failure, message: `unexpected error: ${what}`, showUsage: false, unexpected: true };
}

/** The whole error for --verbose: stack, cause chain and extra properties. */
export const verboseTrace = (err: unknown): string => inspect(err, { depth: 4 });
