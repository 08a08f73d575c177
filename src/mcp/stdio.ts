// First import: from here on only the MCP transport writes to stdout.
import { protocolOutput } from './stdout-guard.js';
import { randomUUID } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Logger } from '../core/shared-ports.js';
import { RETENTION_INTERVAL_MS } from '../core/retention/retention.js';
import { createProcessLogger } from '../logger.js';
import { isStartupRefusal, openRuntime } from '../runtime.js';
import { createDeliveryWorker } from '../worker/create.js';
import type { AisleApi } from './api.js';
import { createInProcessApi } from './in-process-api.js';
import { createRestApi } from './rest-api.js';
import { buildMcpServer, MCP_SERVER_VERSION } from './server.js';

interface Backend {
  api: AisleApi;
  close(): Promise<void>;
}

/** AISLE_BASE_URL set: a running Aisle over REST. Otherwise the configured stores, opened here. */
async function openBackend(config: Config, apiKey: string, logger: Logger): Promise<Backend> {
  if (config.mcp.remoteBaseUrl !== undefined) {
    logger.info({ baseUrl: config.mcp.remoteBaseUrl }, 'MCP server forwarding to a running Aisle over REST');
    return { api: createRestApi({ baseUrl: config.mcp.remoteBaseUrl, apiKey, userAgent: `aisle-mcp/${MCP_SERVER_VERSION}` }), close: async () => undefined };
  }
  let runtime: Awaited<ReturnType<typeof openRuntime>>;
  try {
    runtime = await openRuntime(config, logger);
  } catch (err) {
    if ((err as Error).name !== 'LockHeldError') throw err;
    throw new ConfigError(
      `${(err as Error).message}\nTo use the Aisle server that holds it, run the MCP server with AISLE_BASE_URL=${config.clickLinks.publicBaseUrl}/v1 ` +
        '(and your AISLE_API_KEY): it then calls that server over REST instead of opening the data directory.',
    );
  }
  const delivery = config.webhooks.inProcessWorker ? createDeliveryWorker(config, runtime.db, logger) : null;
  delivery?.worker.start();
  // On the embedded database this process is the only one on the data directory, so it prunes
  // what its searches and events add; beside a server on PostgreSQL a second pruner is harmless.
  runtime.core.retention.start(RETENTION_INTERVAL_MS);
  logger.info({ database: runtime.db.kind, dataDir: config.dataDir }, 'MCP server running the core in-process');
  return {
    api: createInProcessApi(runtime.core, { apiKey }),
    close: async () => {
      await runtime.core.retention.stop();
      await delivery?.close();
      await runtime.close();
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createProcessLogger(config.logLevel, config.logFormat);
  const apiKey = config.mcp.apiKey;
  if (apiKey === undefined) {
    throw new ConfigError(
      'AISLE_API_KEY is not set. Give the MCP server an Aisle API key (aisle_sk_…) in its environment: `npm start` prints the first one, ' +
        '`npm run aisle -- keys create --account ID --name agent --scopes search,events:write,analytics:read` makes more.',
    );
  }
  const backend = await openBackend(config, apiKey, logger);
  const server = buildMcpServer(backend.api, { logger, requestId: randomUUID });
  const transport = new StdioServerTransport(process.stdin, protocolOutput);

  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) return;
    closing = true;
    logger.info({ reason }, 'MCP server shutting down');
    await server.close().catch(() => undefined);
    // Releases the embedded database's lock for the next process.
    await backend.close();
    process.exit(0);
  };
  // The client ends the session by closing our stdin (then signals, if we linger).
  process.stdin.once('end', () => void shutdown('stdin closed'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await server.connect(transport);
}

main().catch((err: unknown) => {
  process.stderr.write(
    isStartupRefusal(err) ? `aisle-mcp: ${(err as Error).message}\n` : `aisle-mcp failed to start: ${(err as Error).stack ?? String(err)}\n`,
  );
  process.exit(1);
});
