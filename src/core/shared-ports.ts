/** Ports every domain uses: logging, the caller, text embedding, health, shared secrets, paging. */
import type { Scope } from './keys/scopes.js';

/** The subset of pino the core logs through; keeps the core free of a logging dependency. */
export interface Logger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/** Who is calling: resolved from an API key by the core, then passed to every operation. */
export interface Principal {
  accountId: string;
  keyId: string;
  scopes: readonly Scope[];
  rateLimitPerMinute: number;
  /** The one merchant whose attribution this key may verify and convert (docs/commerce.md); null or absent: any. */
  merchant?: string | null;
  /** False for a test key and the test account it acts in (docs/commerce.md, "Test mode"); absent means live. */
  livemode?: boolean;
  /** The account's PII policy (docs/search.md); `redact` when absent. */
  piiPolicy?: 'redact' | 'reject';
  /**
   * Set when an OAuth access token, not the key itself, authenticated the request: the grant the
   * token belongs to. `keyId` is then the key that approved the grant (docs/oauth.md).
   */
  oauth?: { grantId: string; clientId: string };
}

/** Text → unit-length vectors. Implemented in src/embed (local ONNX, OpenAI-compatible, transformers.js). */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface HealthProbe {
  /** Throws when the database is unreachable; returns whether all migrations are applied. */
  migrationsCurrent(): Promise<boolean>;
}

export interface SecretStore {
  /** The named secret; created with `generate()` by the first process to ask, then shared. */
  getOrCreate(name: string, generate: () => string, now: Date): Promise<string>;
}

export interface PageCursor {
  createdAt: Date;
  id: string;
}
