import { Transform, type TransformCallback } from 'node:stream';

/** Why an outbound request got no usable answer. */
export type OutboundFailure = 'refused' | 'timeout' | 'too_large' | 'malformed' | 'connection' | 'aborted';

/** An outbound request that failed; the message says why in one line, fit to store and show. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly kind: OutboundFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Counts the bytes through it and fails past `max`: a body larger than allowed stops at the limit, whatever it declared. */
export class ByteCounter extends Transform {
  bytes = 0;
  error: OutboundError | null = null;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.error === null && this.bytes > this.max) this.error = new OutboundError('too_large', `the answer is larger than ${this.max} bytes`);
    if (this.error !== null) done(this.error);
    else done(null, chunk);
  }
}
