/**
 * GET /metrics on its own address (AISLE_METRICS_LISTEN), never on the public port: Prometheus
 * text format. A single process serves its own registry; a cluster's primary serves one view over
 * its API processes, asking each for its registry over node:cluster's IPC (prom-client's
 * AggregatorRegistry) at every scrape. docs/operations.md.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from '../core/shared-ports.js';

export interface MetricsServer {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** What the server answers with: the registry's text and its content type. */
type Render = () => Promise<{ contentType: string; text: string }>;

/** This process's own registry. */
export const processMetrics =
  (registry: Registry): Render =>
  async () => ({ contentType: registry.contentType, text: await registry.metrics() });

/**
 * The view over a cluster's API processes, served by its primary. A process that does not answer
 * within prom-client's 5 s fails the scrape (Prometheus marks the target down) rather than
 * under-reporting silently.
 */
export function clusterMetrics(): Render {
  const aggregator = new AggregatorRegistry();
  return async () => ({ contentType: aggregator.contentType, text: await aggregator.clusterMetrics() });
}

/** In an API process of a cluster: lets the primary's aggregator read this registry. */
export function shareWithPrimary(registry: Registry): void {
  // prom-client answers the primary's requests from a listener its AggregatorRegistry's
  // constructor adds, in workers as in the primary; one is made here for that alone.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

export async function serveMetrics(listen: { host: string; port: number }, render: Render, logger: Logger): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    render().then(
      ({ contentType, text }) => res.writeHead(200, { 'content-type': contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        logger.error({ err }, 'collecting the metrics failed');
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics are unavailable; the server log says why\n');
      },
    );
  });
  // A scrape is small and quick: nothing is kept open between them.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
