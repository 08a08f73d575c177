import type { LookupAddress } from 'node:dns';
import { classifyAddress } from '../core/webhooks/url-guard.js';
import { type LookupAll, systemLookupAll } from './dns.js';

/** The connect-time SSRF guard refused every address a host name resolved to. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The `lookup` that net.connect and tls.connect take. */
export type ConnectLookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

/**
 * The SSRF guard at connect time (docs/webhooks.md, "Where a webhook can point"): resolves the
 * host, refuses unless every address is public unicast, and hands the socket exactly the addresses
 * it checked, so a DNS answer that changes between the check and the connect (rebinding) cannot
 * reach a private address. IP-literal hosts never reach a lookup: the outbound client judges them
 * with `checkUrlShape` before it connects.
 */
export function guardedLookup(allowPrivate: boolean, lookupAll: LookupAll = systemLookupAll): ConnectLookup {
  return (hostname, opts, callback) => {
    lookupAll(hostname, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = allowPrivate ? undefined : addresses.find((a) => classifyAddress(a.address) !== 'public');
      if (bad !== undefined || addresses.length === 0) {
        const why = bad ? `${hostname} resolves to a ${classifyAddress(bad.address)} address (${bad.address})` : `${hostname} has no address`;
        return callback(new AddressRefusedError(`refused: ${why}`), []);
      }
      if (opts.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
