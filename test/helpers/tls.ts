import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * A self-signed certificate for 127.0.0.1, localhost and client.test (valid until 2126), made for
 * these tests with openssl and committed with its key: test-only, it guards nothing. Code that
 * must trust it takes it as an extra certificate authority (never from the environment).
 */
const FIXTURES = new URL('../fixtures/tls/', import.meta.url);
export const TEST_CA = readFileSync(new URL('test-only-cert.pem', FIXTURES), 'utf8');
export const TEST_KEY = readFileSync(new URL('test-only-key.pem', FIXTURES), 'utf8');

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real https server on 127.0.0.1 answering each path with its handler (404 otherwise); counts requests per path and connections. */
export class HttpsDocuments {
  readonly hits = new Map<string, number>();
  connections = 0;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(handlers: Record<string, Handler>): Promise<HttpsDocuments> {
    let docs: HttpsDocuments | null = null;
    const server = createServer({ key: TEST_KEY, cert: TEST_CA }, (req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      docs!.hits.set(path, (docs!.hits.get(path) ?? 0) + 1);
      const handler = handlers[path];
      if (handler) handler(req, res);
      else res.writeHead(404).end();
    });
    server.on('connection', () => {
      docs!.connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    docs = new HttpsDocuments(server, (server.address() as AddressInfo).port);
    return docs;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`;
  }

  count(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Answers `body` as JSON with the given extra headers. */
export const jsonDocument =
  (body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
  };
