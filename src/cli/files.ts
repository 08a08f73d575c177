import { accessSync, constants, createReadStream, createWriteStream, openSync, statSync, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
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

/**
 * The objects of a JSON-lines file (blank lines skipped), at most `limit` of them: query sets and
 * other plain JSONL inputs of the tools (a catalog feed goes through src/catalog/files instead). A line that
 * is not JSON throws CliError (exit 65) naming the file and line.
 */
export async function readJsonLines<T>(path: string, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = [];
  let lineNo = 0;
  for await (const line of createInterface({ input: createReadStream(path) })) {
    lineNo += 1;
    if (out.length >= limit) break;
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch (err) {
      throw new CliError(EXIT.dataError, `${path}:${lineNo}: not valid JSON: ${(err as Error).message.slice(0, 200)}`);
    }
  }
  return out;
}
