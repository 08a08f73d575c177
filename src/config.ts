import { resolve } from 'node:path';
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Every environment variable Aisle reads. README's configuration table mirrors this schema;
 * nothing else in the code base touches `process.env`.
 */
const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  AISLE_DATA_DIR: z.string().min(1).default('./.aisle'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AISLE_DEFAULT_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(600),
  AISLE_TRUST_PROXY: booleanFlag.default(false),
  AISLE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
});

export type Config = Readonly<{
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  defaultRateLimitPerMinute: number;
  trustProxy: boolean;
  shutdownGraceMs: number;
}>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses and freezes the configuration; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    dataDir: resolve(e.AISLE_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    logLevel: e.LOG_LEVEL,
    defaultRateLimitPerMinute: e.AISLE_DEFAULT_RATE_LIMIT,
    trustProxy: e.AISLE_TRUST_PROXY,
    shutdownGraceMs: e.AISLE_SHUTDOWN_GRACE_MS,
  });
}
