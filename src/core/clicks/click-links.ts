import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signed click links (docs/clicks.md): `{publicBaseUrl}/r/{impression_id}?sig=…`, where sig is
 * HMAC-SHA256 of the lower-case impression UUID, cut to 128 bits (22 base64url characters: short
 * enough for a chat message, far beyond guessing). The first secret signs; every secret verifies,
 * so rotating means putting the new secret first and keeping the old one for the 30-day
 * attribution window, after which links signed with it can no longer earn anything anyway.
 */
export class ClickLinkSigner {
  private readonly secrets: readonly Buffer[];
  private readonly base: string;

  constructor(options: { publicBaseUrl: string; secrets: readonly string[] }) {
    if (options.secrets.length === 0) throw new Error('ClickLinkSigner needs at least one secret');
    this.secrets = options.secrets.map((s) => Buffer.from(s, 'utf8'));
    this.base = options.publicBaseUrl.replace(/\/+$/, '');
  }

  sign(impressionId: string): string {
    return mac(this.secrets[0]!, impressionId).toString('base64url');
  }

  /** Constant-time against every accepted secret; false for anything malformed. */
  verify(impressionId: string, signature: string | undefined): boolean {
    if (signature === undefined || !/^[A-Za-z0-9_-]{22}$/.test(signature)) return false;
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== SIG_BYTES) return false;
    let ok = false;
    for (const secret of this.secrets) ok = timingSafeEqual(given, mac(secret, impressionId)) || ok;
    return ok;
  }

  urlFor(impressionId: string): string {
    return `${this.base}/r/${impressionId}?sig=${this.sign(impressionId)}`;
  }
}

const SIG_BYTES = 16;

const mac = (secret: Buffer, impressionId: string): Buffer =>
  createHmac('sha256', secret).update(`click:${impressionId.toLowerCase()}`).digest().subarray(0, SIG_BYTES);

/** 256 random bits, for a server that was given no secret (see docs/clicks.md). */
export const generateClickSecret = (): string => randomBytes(32).toString('base64url');
