/**
 * What one batch of requests costs the server in this process: CPU of every thread, the longest
 * event-loop block, heap allocated and RSS risen (the module comment of tools/bench/worst.ts says
 * how each is measured and why).
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import type { BenchServer } from '../lib.js';
import type { Client, Req } from './client.js';

export interface Sample {
  cpuMs: number;
  /** Longest stretch of the main thread's own CPU time between two timer ticks; null without /proc. */
  blockMs: number | null;
  /** Longest event-loop delay by the wall clock (monitorEventLoopDelay), time the OS ran others included. */
  delayMs: number;
  /** JavaScript heap allocated per request (main isolate): the rise in use plus what collections freed meanwhile. */
  allocMb: number;
  /** Largest rise of the process's RSS above its level at the start of the batch. */
  rssMb: number;
  statuses: Record<string, number>;
  samples: Record<string, string>;
  failed: string | null;
}

const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();

/** Nanoseconds the calling thread has run (Linux schedstat); null elsewhere. */
export function threadRunNs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/**
 * The event-loop block as the main thread's own CPU time between consecutive ticks of a 5 ms
 * timer: a tick that comes late because this thread ran something long shows that run; one that
 * comes late because the OS ran other processes (two cores shared by several jobs) does not. The
 * wall-clock delay is reported beside it. A sync read of /proc runs on the calling thread, so
 * `thread-self` is the event loop's.
 */
class BlockMeter {
  private timer: NodeJS.Timeout | null = null;
  private last: number | null = null;
  max = 0;

  start(): void {
    this.max = 0;
    this.last = threadRunNs();
    if (this.last === null) return;
    this.timer = setInterval(() => this.tick(), 5);
  }

  private tick(): void {
    const now = threadRunNs();
    if (now === null || this.last === null) return;
    this.max = Math.max(this.max, (now - this.last) / 1e6);
    this.last = now;
  }

  stop(): number | null {
    if (this.timer === null) return null;
    this.tick();
    clearInterval(this.timer);
    this.timer = null;
    return this.max;
  }
}

const blocks = new BlockMeter();

export async function measure(server: BenchServer, client: Client, reqs: readonly Req[]): Promise<Sample> {
  await client.load(reqs);
  const rss0 = process.memoryUsage.rss();
  let peakRss = rss0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 10);
  const gcs = new GCProfiler();
  gcs.start();
  const heap0 = getHeapStatistics().used_heap_size;
  loopDelay.reset();
  blocks.start();
  const cpu0 = process.cpuUsage();
  const result = await client.go();
  await server.core.requestLog.flush();
  const cpu = process.cpuUsage(cpu0);
  const blockMs = blocks.stop();
  const delayMs = loopDelay.max / 1e6;
  const heap1 = getHeapStatistics().used_heap_size;
  const freed = gcs.stop().statistics.reduce((n, g) => n + Math.max(0, g.beforeGC.heapStatistics.usedHeapSize - g.afterGC.heapStatistics.usedHeapSize), 0);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  return {
    cpuMs: (cpu.user + cpu.system) / 1000 / reqs.length,
    blockMs,
    delayMs,
    allocMb: (heap1 - heap0 + freed) / reqs.length / 2 ** 20,
    rssMb: (peakRss - rss0) / 2 ** 20,
    statuses: result.statuses,
    samples: result.samples,
    failed: result.failed,
  };
}
