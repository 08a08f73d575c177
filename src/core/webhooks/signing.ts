import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks format). */
export const generateWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Standard Webhooks headers for one send. Each secret in `secrets` adds a `v1,` signature
 * (space-separated), so during a rotation receivers holding either secret verify.
 */
export function signPayload(messageId: string, timestamp: Date, payload: string, secrets: readonly string[]): SignedHeaders {
  const signatures = secrets.map((s) => new Webhook(s).sign(messageId, timestamp, payload));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
