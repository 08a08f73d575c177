import { readdirSync } from 'node:fs';
import { expect } from 'vitest';
import { type HostileServer, processHolds } from './hostile.js';

/** How much a hostile case may grow a process's resident memory. */
const RSS_SLACK_MB = 150;

export interface Baseline {
  pid: number;
  rssMb: number;
  /** The process's temporary folder (its TMPDIR), if it has one of its own, and what was in it. */
  tmpDir: string | null;
  tmpFiles: string[];
}

export function baseline(pid: number, server: HostileServer, tmpDir: string | null = null): Baseline {
  return { pid, rssMb: processHolds(pid, server.ports).rssMb, tmpDir, tmpFiles: tmpDir === null ? [] : readdirSync(tmpDir).sort() };
}

async function settles(what: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * After a hostile case: the process is alive, every connection to the hostile server has closed
 * from both ends (the server sees none open; the process holds no socket to it in any state), its
 * resident memory is within 150 MB of before, and its temporary folder holds what it held.
 */
export async function expectUnharmed(before: Baseline, server: HostileServer, label: string): Promise<void> {
  expect(() => process.kill(before.pid, 0), `${label}: the process is alive`).not.toThrow();
  expect(await settles(() => server.openConnections === 0), `${label}: connections the server still has open: ${server.openConnections}`).toBe(true);
  const held = () => processHolds(before.pid, server.ports).socketsTo;
  if (!(await settles(() => held().length === 0))) expect.fail(`${label}: sockets to the hostile server still held: ${held().join('; ')}`);
  const now = processHolds(before.pid, server.ports);
  expect(now.rssMb, `${label}: RSS ${Math.round(now.rssMb)} MB against ${Math.round(before.rssMb)} MB before`).toBeLessThanOrEqual(before.rssMb + RSS_SLACK_MB);
  if (before.tmpDir !== null) expect(readdirSync(before.tmpDir).sort(), `${label}: temporary files left`).toEqual(before.tmpFiles);
}
