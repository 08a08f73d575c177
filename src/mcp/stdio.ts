// First import, for its effect: from here on only the MCP transport writes to stdout. (A bare
// import stays first when imports are sorted.)
import './stdout-guard.js';
import { randomUUID } from 'node:crypto';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { AppError } from '../core/errors.js';
import { RETENTION_INTERVAL_MS } from '../core/retention/retention.js';
import type { Logger } from '../core/shared-ports.js';
import { createProcessLogger } from '../logger.js';
import { isStartupRefusal, openRuntime } from '../runtime.js';
import { assertConfiguredDbAvailable } from '../store/pg/index.js';
import { createDeliveryWorker } from '../worker/create.js';
import type { AisleApi } from './api.js';
import { createInProcessApi } from './in-process-api.js';
import { createRestApi } from './rest-api.js';
import { buildMcpServer, MCP_SERVER_VERSION } from './server.js';
import { protocolOutput } from './stdout-guard.js';

interface Backend {
  api: AisleApi;
  close(): Promise<void>;
}

const heldDataDirAdvice = (config: Config, err: Error) =>
  new ConfigError(
    `${err.message}\nTo use the Aisle server that holds it, run the MCP server with AISLE_BASE_URL=${config.clickLinks.publicBaseUrl}/v1 ` +
      '(and your AISLE_API_KEY): it then calls that server over REST instead of opening the data directory.',
  );

/** The configured stores and the core in this process, with the webhook worker and retention running. */
async function openInProcess(config: Config, apiKey: string, logger: Logger): Promise<Backend> {
  let runtime: Awaited<ReturnType<typeof openRuntime>>;
  try {
    runtime = await openRuntime(config, logger);
  } catch (err) {
    throw (err as Error).name === 'LockHeldError' ? heldDataDirAdvice(config, err as Error) : err;
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

/**
 * The in-process backend, opened by the first call that needs it. A 2026-07-28 client probing
 * the version (`versionNegotiation: auto`) starts a throw-away copy of this process, asks it
 * `server/discover`, then ends it with SIGTERM and SIGKILL a second later: a copy that had opened
 * the embedded database would still hold its lock, or be killed writing to it. Listing tools
 * opens nothing; a failed opening is a 503 problem and the next call tries again.
 */
function openOnFirstUse(open: () => Promise<Backend>): Backend {
  let opening: Promise<Backend> | null = null;
  const backend = async () => {
    opening ??= open().catch((err: unknown) => {
      opening = null;
      throw isStartupRefusal(err) ? new AppError('unavailable', (err as Error).message, { cause: err }) : err;
    });
    return (await opening).api;
  };
  return {
    api: {
      search: async (request) => (await backend()).search(request),
      recordClick: async (impressionId) => (await backend()).recordClick(impressionId),
      recordDisplays: async (request) => (await backend()).recordDisplays(request),
      submitFeedback: async (feedback) => (await backend()).submitFeedback(feedback),
      getAnalytics: async (query) => (await backend()).getAnalytics(query),
      ucpSearch: async (request, profile) => (await backend()).ucpSearch(request, profile),
      ucpLookup: async (request, profile) => (await backend()).ucpLookup(request, profile),
      ucpGetProduct: async (request, profile) => (await backend()).ucpGetProduct(request, profile),
      imageOrigins: async () => (await backend()).imageOrigins(),
    },
    close: async () => {
      const opened = await opening?.catch(() => null);
      await opened?.close();
    },
  };
}

/** AISLE_BASE_URL set: a running Aisle over REST. Otherwise the configured stores, once a call needs them. */
function chooseBackend(config: Config, apiKey: string, logger: Logger): Backend {
  if (config.mcp.remoteBaseUrl !== undefined) {
    logger.info({ baseUrl: config.mcp.remoteBaseUrl }, 'MCP server forwarding to a running Aisle over REST');
    const api = createRestApi({
      baseUrl: config.mcp.remoteBaseUrl,
      apiKey,
      userAgent: `aisle-mcp/${MCP_SERVER_VERSION}`,
      timeoutMs: config.mcp.remoteTimeoutMs,
    });
    return { api, close: () => api.close() };
  }
  // Refuse at once, not at the first call, while another process holds the embedded database.
  try {
    assertConfiguredDbAvailable(config);
  } catch (err) {
    throw (err as Error).name === 'LockHeldError' ? heldDataDirAdvice(config, err as Error) : err;
  }
  return openOnFirstUse(() => openInProcess(config, apiKey, logger));
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
  const backend = chooseBackend(config, apiKey, logger);
  // Either era, fixed by the connection's first message: `initialize` (2025) or a 2026-07-28 request.
  const handle = serveStdio(() => buildMcpServer(backend.api, { logger, requestId: randomUUID }), {
    transport: new StdioServerTransport(process.stdin, protocolOutput),
    onerror: (err) => logger.warn({ err }, 'MCP stdio connection error'),
  });

  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) return;
    closing = true;
    logger.info({ reason }, 'MCP server shutting down');
    await handle.close().catch(() => undefined);
    // Releases the embedded database's lock for the next process.
    await backend.close();
    process.exit(0);
  };
  // The client ends the session by closing our stdin (then signals, if we linger).
  process.stdin.once('end', () => void shutdown('stdin closed'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(
    isStartupRefusal(err) ? `aisle-mcp: ${(err as Error).message}\n` : `aisle-mcp failed to start: ${(err as Error).stack ?? String(err)}\n`,
  );
  process.exit(1);
});
