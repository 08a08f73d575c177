import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export interface PidLock {
  release(): void;
}

export class LockHeldError extends Error {
  override readonly name = 'LockHeldError';
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
 * An O_EXCL pid file: turns "two processes writing one local store" into a clear error instead
 * of corruption. A file left by a dead process is taken over. `explain(pid)` words the error.
 */
export function acquirePidLock(path: string, explain: (holderPid: number) => string): PidLock {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(holder) && (holder === process.pid || processAlive(holder))) throw new LockHeldError(explain(holder));
      rmSync(path, { force: true });
    }
  }
  throw new LockHeldError(`Could not take the lock file ${path}.`);
}
