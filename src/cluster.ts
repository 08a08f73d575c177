/**
 * `npm start` with more than one API process (AISLE_API_PROCESSES, PostgreSQL only): this primary
 * process serves nothing itself. It does the once-per-start work (migrations, the default
 * account and its key, the sample catalog), then starts the API processes with node:cluster,
 * which share the listening port. A process that dies is started again (a crash loop stops the
 * server instead of spinning); SIGTERM or SIGINT stops every process gracefully, each finishing
 * its requests in flight.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { Logger } from './core/shared-ports.js';
import { clusterMetrics, serveMetrics } from './metrics/server.js';

/** More than this many restarts within RESTART_WINDOW_MS is a crash loop. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

export interface PrimaryHooks {
  /** The once-per-start work; resolves with the admin key line to print when an account was created. */
  prepare(): Promise<{ createdKeyNotice: string | null }>;
}

export async function runPrimary(config: Config, logger: Logger, hooks: PrimaryHooks): Promise<void> {
  const { createdKeyNotice } = await hooks.prepare();
  if (createdKeyNotice) process.stderr.write(createdKeyNotice);

  const byIndex = new Map<number, Worker>();
  const restarts: number[] = [];
  let stopping = false;
  let announced = false;

  const start = (index: number) => {
    const child = cluster.fork({ AISLE_PROCESS_INDEX: String(index) });
    byIndex.set(index, child);
    child.on('listening', (address) => {
      logger.info({ processIndex: index, pid: child.process.pid }, 'API process listening');
      if (announced) return;
      announced = true;
      const url = `http://${address.address ?? config.host}:${address.port}`;
      process.stderr.write(
        `Aisle listening on ${url} with ${config.apiProcesses} API processes (console ${url}/, API ${url}/v1, MCP ${url}/mcp, docs ${url}/docs)\n`,
      );
      if (createdKeyNotice) process.stderr.write(`Open ${url}/ and sign in with this key\n`);
    });
    child.on('exit', (code, signal) => {
      if (byIndex.get(index) === child) byIndex.delete(index);
      if (stopping) return;
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && now - restarts[0]! > RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length > MAX_RESTARTS) {
        logger.error({ processIndex: index, code, signal, restarts: restarts.length }, 'API processes keep dying; stopping the server');
        void stop(1);
        return;
      }
      logger.error({ processIndex: index, pid: child.process.pid, code, signal }, 'API process died; starting it again');
      start(index);
    });
  };

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ processes: byIndex.size }, 'stopping the API processes');
    const exits = [...byIndex.values()].map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of byIndex.values()) w.process.kill('SIGTERM');
    // Each process has its own grace period; past it (and a margin) what is left is killed.
    const deadline = setTimeout(() => {
      for (const w of byIndex.values()) if (!w.isDead()) w.process.kill('SIGKILL');
    }, config.shutdownGraceMs + 5_000);
    await Promise.all(exits);
    clearTimeout(deadline);
    process.exit(exitCode);
  };
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));

  for (let i = 0; i < config.apiProcesses; i++) start(i);
  // One view over every API process, served by this primary (docs/operations.md).
  if (config.metricsListen) {
    const server = await serveMetrics(config.metricsListen, clusterMetrics(), logger);
    logger.info({ url: server.url }, 'serving metrics for every API process');
    process.stderr.write(`Metrics at ${server.url}\n`);
  }
}
