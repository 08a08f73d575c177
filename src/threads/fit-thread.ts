/**
 * Runs global learning's fit (fitFromLog) on a thread of its own, so a serving process's event loop
 * only reads the log and hands it over: the position-bias EM, the labels and the coordinate
 * ascent take another core instead of time between searches. The thread's code is bundled by
 * esbuild from fit-thread-entry.ts on first use (src/bundle.ts), so it runs the same TypeScript
 * under tsx, vitest or plain node.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { bundle, onFirstUse } from '../bundle.js';
import type { fitFromLog } from '../core/learning/global-fit.js';
import { type FitRequest, packLog } from './fit-thread-log.js';

const ENTRY = fileURLToPath(new URL('./fit-thread-entry.ts', import.meta.url));
const threadCode = onFirstUse(async () => (await bundle(ENTRY, { format: 'cjs', platform: 'node', target: 'node20' }))[0]!.text);

export const fitInThread: typeof fitFromLog = async (log, serving, source, options, incumbent) => {
  const packed = packLog(log);
  const request: FitRequest = { log: packed, serving, source, options: options!, incumbent };
  const thread = new Worker(await threadCode(), {
    eval: true,
    workerData: request,
    transferList: [packed.features.buffer, packed.positions.buffer, packed.flags.buffer, packed.votes.buffer] as ArrayBuffer[],
  });
  return new Promise((resolve, reject) => {
    thread.once('message', (result: Awaited<ReturnType<typeof fitFromLog>>) => {
      resolve(result);
      void thread.terminate();
    });
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the learning thread exited with code ${code} before answering`)));
  });
};
