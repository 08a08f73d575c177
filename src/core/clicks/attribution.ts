import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { prefixedId } from '../ids.js';

/**
 * Attribution tokens (docs/commerce.md, "Attribution"): what an agent hands a merchant at checkout
 * so the sale is credited to the publisher whose search showed the product, without the person
 * passing through the click redirect. `aisle_attr_` + base64url of 49 bytes:
 *
 *   version (1) · key id (4) · impression UUID (16) · issued, Unix seconds (4) · merchant digest (8) · MAC (16)
 *
 * The MAC is HMAC-SHA256 over the bytes before it, cut to 128 bits, with a key derived from a
 * click-link secret: rotating AISLE_CLICK_SECRET rotates both, and the key id says which secret
 * signed, so old tokens verify for their 30 days. Account, search and product come from the
 * impression the token names; the merchant digest binds it to the product's merchant. Opaque to
 * callers: nothing in it is meant to be read but by Aisle.
 */
const ATTRIBUTION_TOKEN_PREFIX = 'aisle_attr_';
/** Tokens are valid for the conversion window of a click. */
const ATTRIBUTION_TTL_MS = 30 * 24 * 3600 * 1000;

const VERSION = 1;
const BYTES = 1 + 4 + 16 + 4 + 8 + 16;
const SIGNED = BYTES - 16;
const TOKEN = new RegExp(`^${ATTRIBUTION_TOKEN_PREFIX}[A-Za-z0-9_-]{${Math.ceil((BYTES * 4) / 3)}}$`);

/** The ACP affiliate_attribution object each result carries (ACP's attribution proposal). */
export interface AffiliateAttribution {
  provider: string;
  token: string;
  publisher_id: string;
  source: { type: 'platform' };
  issued_at: string;
  expires_at: string;
}

export type TokenReading =
  | { status: 'unknown' }
  | { status: 'tampered' }
  | { status: 'signed'; impressionId: string; merchantDigest: Buffer; issuedAt: Date; expiresAt: Date };

/** Case and spacing do not make another merchant. */
export const merchantDigest = (merchant: string | null): Buffer =>
  createHash('sha256')
    .update(`merchant:${(merchant ?? '').normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()}`)
    .digest()
    .subarray(0, 8);

interface SigningKey {
  id: Buffer;
  key: Buffer;
}

export class AttributionTokens {
  private readonly keys: readonly SigningKey[];
  readonly provider: string;

  /** `secrets`: the click-link secrets, newest first; `publicBaseUrl` names the provider (its host name). */
  constructor(options: { secrets: readonly string[]; publicBaseUrl: string }) {
    if (options.secrets.length === 0) throw new Error('AttributionTokens needs at least one secret');
    this.keys = options.secrets.map((secret) => {
      const key = createHmac('sha256', secret).update('aisle attribution token key').digest();
      return { key, id: createHash('sha256').update(key).digest().subarray(0, 4) };
    });
    this.provider = new URL(options.publicBaseUrl).hostname;
  }

  /** The token of an impression: the same bytes whenever it is asked for again (search answer, click redirect). */
  token(impressionId: string, merchant: string | null, issuedAt: Date): string {
    const signer = this.keys[0]!;
    const buf = Buffer.alloc(BYTES);
    buf[0] = VERSION;
    signer.id.copy(buf, 1);
    Buffer.from(impressionId.replaceAll('-', ''), 'hex').copy(buf, 5);
    buf.writeUInt32BE(Math.floor(issuedAt.getTime() / 1000), 21);
    merchantDigest(merchant).copy(buf, 25);
    mac(signer.key, buf.subarray(0, SIGNED)).copy(buf, SIGNED);
    return `${ATTRIBUTION_TOKEN_PREFIX}${buf.toString('base64url')}`;
  }

  attribution(impression: { impressionId: string; accountId: string; merchant: string | null; issuedAt: Date }): AffiliateAttribution {
    const issued = new Date(Math.floor(impression.issuedAt.getTime() / 1000) * 1000);
    return {
      provider: this.provider,
      token: this.token(impression.impressionId, impression.merchant, issued),
      publisher_id: prefixedId('account', impression.accountId),
      source: { type: 'platform' },
      issued_at: issued.toISOString(),
      expires_at: new Date(issued.getTime() + ATTRIBUTION_TTL_MS).toISOString(),
    };
  }

  /**
   * What a token says, if Aisle signed it: `unknown` when it is not a token of this server's
   * format or key ids, `tampered` when its MAC does not match (constant-time), else its fields.
   */
  read(token: string): TokenReading {
    if (!TOKEN.test(token)) return { status: 'unknown' };
    const buf = Buffer.from(token.slice(ATTRIBUTION_TOKEN_PREFIX.length), 'base64url');
    if (buf.length !== BYTES || buf[0] !== VERSION) return { status: 'unknown' };
    const signer = this.keys.find((k) => k.id.equals(buf.subarray(1, 5)));
    if (!signer) return { status: 'unknown' };
    if (!timingSafeEqual(mac(signer.key, buf.subarray(0, SIGNED)), buf.subarray(SIGNED))) return { status: 'tampered' };
    const hex = buf.subarray(5, 21).toString('hex');
    const issuedAt = new Date(buf.readUInt32BE(21) * 1000);
    return {
      status: 'signed',
      impressionId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
      merchantDigest: Buffer.from(buf.subarray(25, 33)),
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + ATTRIBUTION_TTL_MS),
    };
  }
}

const mac = (key: Buffer, bytes: Buffer): Buffer => createHmac('sha256', key).update(bytes).digest().subarray(0, 16);
