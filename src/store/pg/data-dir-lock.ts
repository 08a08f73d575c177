import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface DataDirLock {
  release(): void;
}

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is single-process: two processes opening one data directory would corrupt it.
 * An O_EXCL pid file turns that into a clear error; a file left by a dead process is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(holder) && (holder === process.pid || processAlive(holder))) {
        throw new DataDirInUseError(
          `The embedded database in ${dataDir} is in use by process ${holder}. PGlite is single-process: ` +
            'stop that process, use another AISLE_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.',
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirInUseError(`Could not take the lock file ${path}.`);
}
