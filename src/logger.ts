import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

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

/**
 * The logger of a process a person may be watching (npm start, npm run worker, npm run mcp):
 * `format` `auto` writes readable lines when stderr is a terminal and JSON lines otherwise, so
 * log shippers and pipes get JSON.
 */
export function createProcessLogger(level: string, format: 'auto' | 'json' | 'pretty'): Logger {
  const readable = format === 'pretty' || (format === 'auto' && process.stderr.isTTY === true);
  if (!readable) return createLogger(level);
  return createLogger(
    level,
    pretty({
      destination: 2,
      sync: true,
      colorize: process.stderr.isTTY === true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,service',
    }),
  );
}
