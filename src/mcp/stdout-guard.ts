import { Writable } from 'node:stream';

const writeToStdout = process.stdout.write.bind(process.stdout);

/**
 * The stdio transport's only way to stdout. Imported before anything else in the stdio entry, so
 * that whatever a library prints to stdout afterwards (console.log, progress output) goes to
 * stderr instead of corrupting the JSON-RPC stream.
 */
export const protocolOutput = new Writable({
  write(chunk: Buffer | string, encoding: BufferEncoding, callback: (err?: Error | null) => void) {
    writeToStdout(chunk, encoding, callback);
  },
});

process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
