import type { LookupAddress } from 'node:dns';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { classifyAddress } from '../core/webhooks/url-guard.js';
import { type LookupAll, systemLookupAll } from './dns.js';

/** The connect-time SSRF guard refused every address a host name resolved to. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
}

export interface GuardedAgentOptions {
  /** Private, loopback and reserved addresses allowed (local development and tests). */
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** Tests stand in for DNS (a rebinding resolver); production uses dns.lookup. */
  lookupAll?: LookupAll;
  /** Certificate authorities to trust besides the system's (tests' own https servers). */
  extraCa?: string;
  keepAliveTimeoutMs?: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An undici agent whose every connection passes the SSRF guard (docs/webhooks.md): the agent's
 * `connect.lookup` resolves the host, refuses unless every address is public unicast, and hands
 * the socket exactly the addresses it checked, so a DNS answer that changes between the check and
 * the connect (rebinding) cannot reach a private address. IP-literal hosts never reach a lookup:
 * callers judge them with `checkUrlShape` before the request. Used by webhook delivery and by the
 * OAuth client metadata fetch.
 */
export function guardedAgent(options: GuardedAgentOptions): Agent {
  const lookupAll = options.lookupAll ?? systemLookupAll;
  const lookup = (hostname: string, opts: { all?: boolean }, callback: LookupCallback) => {
    lookupAll(hostname, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = options.allowPrivate ? undefined : addresses.find((a) => classifyAddress(a.address) !== 'public');
      if (bad !== undefined || addresses.length === 0) {
        const why = bad ? `${hostname} resolves to a ${classifyAddress(bad.address)} address (${bad.address})` : `${hostname} has no address`;
        return callback(new AddressRefusedError(`refused: ${why}`), []);
      }
      if (opts.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
  // Node replaces its trusted roots with `ca` when given one: keep the system's and add the extra.
  const ca = options.extraCa === undefined ? {} : { ca: [...rootCertificates, options.extraCa] };
  return new Agent({ connect: { lookup: lookup as never, timeout: options.connectTimeoutMs, ...ca }, keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000 });
}
