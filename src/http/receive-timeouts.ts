import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { AppError, toProblem } from '../core/errors.js';

/** Bounds on receiving a request, in milliseconds; 0 turns one off (docs/configuration.md). */
export interface HttpTimeouts {
  /** From the request's first byte to its last: headers and body. */
  requestMs: number;
  /** From the request's first byte to the end of its headers. */
  headersMs: number;
  /**
   * Once the app starts closing, how long a connection still receiving a request is waited for;
   * requestMs when absent. main.ts keeps it inside the shutdown grace period.
   */
  closeMs?: number;
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Node enforces both bounds from a timer that looks at open connections every
 * connectionsCheckingInterval (30 s by default, so a bound could be overshot by 30 s): a tenth of
 * the shorter bound, between 50 ms and 1 s, keeps the overshoot small for little work.
 */
function checkingInterval(t: HttpTimeouts): number | undefined {
  const bounds = [t.requestMs, t.headersMs].filter((ms) => ms > 0);
  return bounds.length === 0 ? undefined : Math.min(1_000, Math.max(50, Math.floor(Math.min(...bounds) / 10)));
}

/**
 * The request and header timeouts of the app's HTTP server (Fastify 5 turns Node's 300 s request
 * timeout off by default, so a client trickling a body would hold its socket forever).
 *
 * They bound receiving only. Node stops timing a request once its last byte has arrived, so a
 * long answer (a slow search, an SSE stream) is never cut by them; test/http/timeouts.test.ts
 * checks it. A request not received in time is answered 408 `request_timeout` (problem+json) and
 * its connection closed.
 *
 * Node also stops enforcing them once server.close() is called (it clears its checking timer), so
 * on shutdown a trickling client would hold close() open until it finished. From the start of the
 * close, connections still receiving a request get closeMs (the request bound) more, then the same 408.
 *
 * An answer finished during the close ends its connection: Node keeps such a connection open for
 * the next request (server.close() closes only the connections idle when it is called), so every
 * client that keeps connections alive (fetch, Node's default agent) held the close until the 408
 * cutoff. Answers begun during the close say `Connection: close`.
 */
export class ReceiveTimeouts {
  private readonly sockets = new Set<Socket>();
  private readonly exchanges = new WeakMap<Socket, Exchange>();
  private cutoff: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    private readonly timeouts: HttpTimeouts,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Fastify options: Node's server options and the handler of requests that never arrived whole. */
  fastifyOptions(): { requestTimeout: number; http: ServerOptions; clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => void } {
    const { requestMs, headersMs } = this.timeouts;
    const interval = checkingInterval(this.timeouts);
    return {
      requestTimeout: requestMs,
      http: { requestTimeout: requestMs, headersTimeout: headersMs, ...(interval === undefined ? {} : { connectionsCheckingInterval: interval }) },
      clientErrorHandler: (err, socket) => this.onClientError(err, socket),
    };
  }

  /** Tracks connections and what each is doing, and cuts stalled ones off once the app closes. */
  register(app: FastifyInstance): void {
    const server = app.server;
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const exchange = { req, res };
      this.exchanges.set(req.socket, exchange);
      if (this.closing) res.shouldKeepAlive = false;
      res.once('finish', () => {
        if (this.exchanges.get(req.socket) === exchange) this.exchanges.delete(req.socket);
        // Once the answer is out the connection is idle; Node decides that (a pipelined request keeps it).
        if (this.closing) setImmediate(() => server.closeIdleConnections());
      });
    });
    app.addHook('preClose', (done) => {
      this.closing = true;
      for (const socket of this.sockets) {
        const res = this.exchanges.get(socket)?.res;
        if (res !== undefined && !res.headersSent) res.shouldKeepAlive = false;
      }
      const closeMs = this.timeouts.closeMs ?? this.timeouts.requestMs;
      if (closeMs > 0) {
        this.cutoff = setTimeout(() => this.cutOffStalled(), closeMs);
        this.cutoff.unref();
      }
      done();
    });
    server.once('close', () => {
      if (this.cutoff) clearTimeout(this.cutoff);
    });
  }

  /** Still receiving: no request under way (its headers are incomplete, or nothing came) or its body not all in. */
  private receiving(socket: Socket): boolean {
    const exchange = this.exchanges.get(socket);
    return exchange === undefined || !exchange.req.complete;
  }

  private cutOffStalled(): void {
    for (const socket of this.sockets) {
      if (this.receiving(socket))
        this.onClientError(Object.assign(new Error('request not received before shutdown'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    }
  }

  /**
   * Replaces Fastify's default (a JSON body of its own) so that these answers are problem+json
   * like every other error: 408 for a request not received in time, 431 for oversized headers,
   * 400 for a request that is not HTTP. Nothing is written once an answer has begun.
   */
  private onClientError(err: Error & { code?: string }, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const error =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('request_timeout', 'The request was not received in time. Send the whole request at once.')
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? new AppError('headers_too_large', 'The request headers exceed the size limit.')
          : new AppError('bad_request', 'The request is not valid HTTP.');
    const requestId = randomUUID();
    this.logger.info({ status: error.status, code: err.code, remoteAddress: socket.remoteAddress, reqId: requestId }, 'request not received');
    const answering = this.exchanges.get(socket)?.res.headersSent === true;
    if (socket.writable && !answering) {
      const body = JSON.stringify(toProblem(error, requestId));
      socket.write(
        `HTTP/1.1 ${error.status} ${statusText[error.status] ?? 'Error'}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  }
}

const statusText: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
