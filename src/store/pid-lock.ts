import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export interface PidLock {
  release(): void;
}

export class LockHeldError extends Error {
  override readonly name = 'LockHeldError';
}

/** Whether a process with this id runs (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process holding the lock file (this one included), or null when none does. */
function liveHolder(path: string): number | null {
  let holder: number;
  try {
    holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return Number.isInteger(holder) && (holder === process.pid || processAlive(holder)) ? holder : null;
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
      const holder = liveHolder(path);
      if (holder !== null) throw new LockHeldError(explain(holder));
      rmSync(path, { force: true });
    }
  }
  throw new LockHeldError(`Could not take the lock file ${path}.`);
}

/**
 * Throws the LockHeldError acquirePidLock would, without taking the lock: for a process that opens
 * the store later but should refuse to start while another process holds it.
 */
export function assertPidLockFree(path: string, explain: (holderPid: number) => string): void {
  const holder = liveHolder(path);
  if (holder !== null && holder !== process.pid) throw new LockHeldError(explain(holder));
}
