/**
 * Trace spans around units of work (docs/operations.md, "Traces"), through OpenTelemetry's API:
 * without a registered provider (src/tracing/tracing.ts, off unless an OTLP endpoint is set)
 * every span is a no-op that costs a function call.
 */
import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('aisle');

/** Runs `run` in a span named `name`, the current span's child; a throw marks the span failed. */
export function inSpan<T>(name: string, attributes: Attributes, run: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await run();
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The same for synchronous work. */
export function inSpanSync<T>(name: string, attributes: Attributes, run: () => T): T {
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    try {
      return run();
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

function failed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}
