import { accessSync, constants, createWriteStream, openSync, statSync, type WriteStream } from 'node:fs';
import { CliError, EXIT, fileProblem } from './errors.js';

/**
 * Checks that `path` is a file this process can read, before a tool opens anything else.
 * Throws CliError (exit 66) for a directory; a missing or unreadable path throws the file
 * system's error, which describeFailure reports as the same exit code with the reason.
 */
export function requireReadableFile(path: string): void {
  if (!statSync(path).isFile()) throw new CliError(EXIT.noInput, `${path}: not a file`);
  accessSync(path, constants.R_OK);
}

/**
 * A stream writing (truncating) `path`, opened now so that a path that cannot be written throws
 * here: CliError, exit 73, with the reason.
 */
export function createOutputFile(path: string): WriteStream {
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (err) {
    throw new CliError(EXIT.cannotCreate, `${path}: cannot write: ${fileProblem((err as NodeJS.ErrnoException).code)}`);
  }
  return createWriteStream(path, { fd });
}
