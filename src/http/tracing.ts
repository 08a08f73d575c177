/**
 * One server span per HTTP request (docs/operations.md, "Traces"), continuing the caller's trace
 * when it sends a W3C `traceparent`. The span is made current before any other hook runs, so the
 * spans of authentication, the search stages, the catalog and the database nest under it. Named
 * by the route's template (`POST /v1/search`), never the path.
 */
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';

const tracer = trace.getTracer('aisle');

export function registerRequestSpans(app: FastifyInstance): void {
  const spans = new WeakMap<object, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      request.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': request.url.split('?')[0] ?? '/' } },
      parent,
    );
    spans.set(request, span);
    context.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      const route = request.routeOptions.url;
      if (route !== undefined) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      spans.delete(request);
    }
    done();
  });
}
