import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { HostResolver } from '../core/webhooks/url-guard.js';

/** dns.lookup with every address (A and AAAA), the resolution connections use. */
export type LookupAll = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export const systemLookupAll: LookupAll = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

const RESOLVE_TIMEOUT_MS = 5_000;

/** The create-time resolver of the SSRF guard, on the same lookup connections use. */
export function lookupResolver(lookupAll: LookupAll = systemLookupAll): HostResolver {
  return {
    resolve: (hostname) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`resolving ${hostname} timed out`)), RESOLVE_TIMEOUT_MS);
        lookupAll(hostname, (err, addresses) => {
          clearTimeout(timer);
          if (err) reject(err);
          else resolve(addresses.map((a) => a.address));
        });
      }),
  };
}

export const systemResolver: HostResolver = lookupResolver();
