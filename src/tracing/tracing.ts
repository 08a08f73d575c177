/**
 * OpenTelemetry traces over OTLP/HTTP (docs/operations.md, "Traces"), on when the standard
 * variables name an endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
 * src/config.ts decides). The exporter reads the rest of the standard variables itself (headers,
 * timeout, OTEL_BSP_* batching, OTEL_TRACES_SAMPLER). Spans: one per HTTP request (src/http/app.ts,
 * continuing an incoming W3C `traceparent`), one per search stage (search-service.ts), one per
 * catalog read (src/store/lance) and one per database statement or transaction (src/store/pg).
 * Without a registered provider every span is the API's no-op.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface Tracing {
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Registers the process-wide tracer provider and its OTLP/HTTP exporter. */
export function startTracing(options: { serviceName: string; processIndex: number | undefined }): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      ...(options.processIndex === undefined ? {} : { 'service.instance.id': `${process.pid}`, 'aisle.process_index': options.processIndex }),
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The global provider, the AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
