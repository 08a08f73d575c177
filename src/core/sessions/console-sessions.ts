import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { type Authenticator, authFailureError } from '../keys/authenticator.js';
import { effectiveStatus } from '../keys/key-status.js';
import type { Logger, Principal } from '../shared-ports.js';
import type { ConsoleSessionStore } from './ports.js';

/** How long a console sign-in lasts. Fixed from sign-in, not sliding: the key is asked again after it. */
export const CONSOLE_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** 32 random bytes, base64url: 43 characters. Anything else is refused before any database read. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
const newToken = (): string => randomBytes(32).toString('base64url');

export interface ConsoleSession {
  principal: Principal;
  csrfToken: string;
  expiresAt: Date;
  key: { id: string; name: string; hint: string };
}

export interface OpenedConsoleSession extends ConsoleSession {
  /** Goes into the HttpOnly cookie and nowhere else; the store keeps only its hash. */
  token: string;
}

export const sessionEndedError = (): AppError =>
  new AppError('session_expired', 'The console session has ended (signed out, expired, or its API key no longer works). Sign in again.');

/**
 * Console sign-in: an API key is exchanged once for a server-side session. The browser never
 * keeps the key; it keeps an opaque token whose hash is stored here, and a CSRF token it must echo
 * on every state change. Each request re-reads the key, so the session can never do more than
 * the key can do now.
 */
export class ConsoleSessions {
  constructor(private readonly deps: { store: ConsoleSessionStore; auth: Authenticator; clock: Clock; logger: Logger; ttlMs?: number }) {}

  /** 401 with the key's own failure code (invalid_api_key, api_key_disabled, ...) when it does not authenticate. */
  async signIn(rawKey: string): Promise<OpenedConsoleSession> {
    const result = await this.deps.auth.authenticate(rawKey.trim());
    if (!result.ok) throw authFailureError(result.reason);
    const now = this.deps.clock.now();
    const token = newToken();
    const csrfToken = newToken();
    const expiresAt = new Date(now.getTime() + (this.deps.ttlMs ?? CONSOLE_SESSION_TTL_MS));
    const { principal } = result;
    await this.deps.store.insert({ tokenHash: hashToken(token), accountId: principal.accountId, keyId: principal.keyId, csrfToken, createdAt: now, expiresAt });
    // Opportunistic clean-up: sign-ins are rare, so this costs nothing noticeable.
    await this.deps.store.deleteExpired(now).catch((err: unknown) => this.deps.logger.warn({ err }, 'console session clean-up failed'));
    const session = await this.resolve(token);
    if (session === null) throw new AppError('unavailable', 'the new console session could not be read back');
    return { ...session, token };
  }

  /** The live session of a token, or null (unknown, expired, or its key no longer authenticates). */
  async resolve(token: string | undefined): Promise<ConsoleSession | null> {
    if (token === undefined || !TOKEN.test(token)) return null;
    const stored = await this.deps.store.find(hashToken(token));
    if (stored === null) return null;
    const now = this.deps.clock.now();
    if (stored.expiresAt.getTime() <= now.getTime() || effectiveStatus(stored.key, now) !== 'active') return null;
    const k = stored.key;
    return {
      principal: { accountId: k.accountId, keyId: k.id, scopes: k.scopes, rateLimitPerMinute: k.rateLimitPerMinute, piiPolicy: k.piiPolicy ?? 'redact' },
      csrfToken: stored.csrfToken,
      expiresAt: stored.expiresAt,
      key: { id: k.id, name: k.name, hint: k.hint },
    };
  }

  async signOut(token: string | undefined): Promise<void> {
    if (token === undefined || !TOKEN.test(token)) return;
    await this.deps.store.delete(hashToken(token));
  }
}

/** Constant-time comparison of the CSRF token a request echoed with the session's. */
export function csrfMatches(session: ConsoleSession, sent: string | undefined): boolean {
  if (sent === undefined) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}
