import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * JSON logs to stderr (stdout stays clean for the MCP stdio transport). Key material is
 * redacted even if a header object is ever logged by mistake.
 */
export function createLogger(level: string, destination: DestinationStream = pino.destination({ fd: 2, sync: false })): Logger {
  return pino(
    {
      level,
      base: { service: 'aisle' },
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-csrf-token"]',
          'headers["x-api-key"]',
          'headers.authorization',
          'headers.cookie',
          'headers["x-csrf-token"]',
          '*.key',
          'key',
          '*.api_key',
          'api_key',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
