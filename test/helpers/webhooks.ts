import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/core/clock.js';
import { createLogger } from '../../src/logger.js';
import type { LookupAll } from '../../src/outbound/dns.js';
import type { Db } from '../../src/store/pg/db.js';
import { PgWebhookStore } from '../../src/store/pg/webhook-store.js';
import { DeliveryWorker } from '../../src/worker/delivery-worker.js';
import { HttpTransport } from '../../src/worker/transport.js';
import { LogCapture } from './app.js';

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

type Responder = (req: Received, res: ServerResponse) => void | Promise<void>;

/** A real HTTP receiver on 127.0.0.1 that records every request and answers with `respond` (200 by default). */
export class Receiver {
  readonly received: Received[] = [];
  /** TCP connections accepted, whether or not a request followed (the SSRF canary counts these). */
  connections = 0;
  respond: Responder = (_req, res) => void res.end('ok');
  private server: Server | null = null;

  static async start(respond?: Responder): Promise<Receiver> {
    const r = new Receiver();
    if (respond) r.respond = respond;
    await r.listen();
    return r;
  }

  private listen(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
        const r: Received = { method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.received.push(r);
        void Promise.resolve(this.respond(r, res)).catch(() => res.destroy());
      });
    });
    this.server.on('connection', () => (this.connections += 1));
    return new Promise((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export interface TestWorker {
  worker: DeliveryWorker;
  transport: HttpTransport;
  logs: LogCapture;
  close(): Promise<void>;
}

/** A delivery worker on the test database, with an injectable clock, jitter, timeout and DNS. */
export function createTestWorker(
  db: Db,
  options: { clock: Clock; allowPrivate: boolean; timeoutMs?: number; lookupAll?: LookupAll; random?: () => number; concurrency?: number; leaseMs?: number },
): TestWorker {
  const transport = new HttpTransport({
    allowPrivate: options.allowPrivate,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.lookupAll === undefined ? {} : { lookupAll: options.lookupAll }),
  });
  const logs = new LogCapture();
  const worker = new DeliveryWorker({
    queue: new PgWebhookStore(db),
    transport,
    clock: options.clock,
    logger: createLogger('debug', logs),
    concurrency: options.concurrency ?? 8,
    leaseMs: options.leaseMs ?? 60_000,
    pollMs: 20,
    ...(options.random ? { random: options.random } : {}),
  });
  return {
    worker,
    transport,
    logs,
    close: async () => {
      await worker.stop();
      await transport.close();
    },
  };
}
