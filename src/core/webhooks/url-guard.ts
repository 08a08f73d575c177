import { isIP } from 'node:net';

/**
 * SSRF guard for webhook URLs (docs/webhooks.md): pure classification of URLs and IP addresses.
 * DNS resolution happens outside (a HostResolver at create time, the delivery transport's
 * connect-time lookup); both feed every address they get through `classifyAddress`.
 */

export type UrlCheck = { ok: true; url: URL; hostname: string; literal: string | null } | { ok: false; reason: string };

/** Parses and checks a webhook URL's shape. `literal` is set when the host is an IP address. */
export function checkUrlShape(raw: string, allowPrivate: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return { ok: false, reason: allowPrivate ? 'must use http or https' : 'must use https' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry a user name or password' };
  if (url.hash !== '') return { ok: false, reason: 'must not carry a #fragment' };
  // The WHATWG parser already turns 2130706433, 0x7f.1 and 0177.0.0.1 into 127.0.0.1.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === '') return { ok: false, reason: 'has no host' };
  const literal = isIP(hostname) !== 0 ? hostname : null;
  if (literal !== null && !allowPrivate) {
    const verdict = classifyAddress(literal);
    if (verdict !== 'public') return { ok: false, reason: `points at a ${verdict} address (${literal})` };
  }
  if (literal === null && !allowPrivate && isLocalName(hostname)) return { ok: false, reason: `names a local host (${hostname})` };
  return { ok: true, url, hostname, literal };
}

/** Names that resolve locally whatever DNS says (RFC 6761 and common LAN suffixes). */
function isLocalName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || /\.(localhost|local|internal|home\.arpa|localdomain)$/.test(h) || !h.includes('.');
}

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved' | 'multicast' | 'unspecified' | 'invalid';

interface Range {
  base: bigint;
  bits: number;
  kind: Exclude<AddressClass, 'public' | 'invalid'>;
}

// IANA special-purpose registries (RFC 6890 and successors): everything here is not public unicast.
const V4_RANGES: [string, number, Range['kind']][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.31.196.0', 24, 'reserved'],
  ['192.52.193.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_RANGES: [string, number, Range['kind']][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'reserved'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['2002::', 16, 'reserved'],
  ['3fff::', 20, 'reserved'],
  ['5f00::', 16, 'reserved'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'],
  ['ff00::', 8, 'multicast'],
];

const v4ToBigInt = (ip: string): bigint => ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);

function v6ToBigInt(ip: string): bigint {
  let text = ip.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // A dotted IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v = v4ToBigInt(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const compile = (ranges: [string, number, Range['kind']][], toInt: (ip: string) => bigint): Range[] =>
  ranges.map(([ip, bits, kind]) => ({ base: toInt(ip), bits, kind }));
const V4 = compile(V4_RANGES, v4ToBigInt);
const V6 = compile(V6_RANGES, v6ToBigInt);

function match(value: bigint, width: number, ranges: Range[]): AddressClass {
  for (const r of ranges) {
    const shift = BigInt(width - r.bits);
    if (value >> shift === r.base >> shift) return r.kind;
  }
  return 'public';
}

/**
 * Classifies one IP address. Only `public` may be connected to. IPv6 forms that embed an IPv4
 * address (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96) are judged by it.
 */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip.split('%')[0] ?? '');
  if (family === 4) return match(v4ToBigInt(ip), 32, V4);
  if (family !== 6) return 'invalid';
  const value = v6ToBigInt(ip);
  const high96 = value >> 32n;
  const embedded = value & 0xffff_ffffn;
  if (high96 === 0xffffn || high96 === 0x64_ff9b_0000_0000_0000_0000n) return match(embedded, 32, V4);
  // IPv4-compatible (::a.b.c.d) is deprecated (RFC 4291): never a legitimate receiver.
  if (high96 === 0n && value > 1n) return match(embedded, 32, V4) === 'public' ? 'reserved' : match(embedded, 32, V4);
  return match(value, 128, V6);
}

/** Resolves a host name to every address it has (A and AAAA). Throws when it does not resolve. */
export interface HostResolver {
  resolve(hostname: string): Promise<string[]>;
}

/**
 * Full create-time check: shape, then every resolved address must be public unicast (one private
 * answer among public ones is enough to refuse: a rebinding resolver may hand out either).
 * Returns null when the URL is acceptable, else the reason.
 */
export async function checkWebhookUrl(raw: string, options: { allowPrivate: boolean; resolver: HostResolver }): Promise<string | null> {
  const shape = checkUrlShape(raw, options.allowPrivate);
  if (!shape.ok) return shape.reason;
  if (options.allowPrivate || shape.literal !== null) return null;
  let addresses: string[];
  try {
    addresses = await options.resolver.resolve(shape.hostname);
  } catch {
    return `host ${shape.hostname} does not resolve`;
  }
  if (addresses.length === 0) return `host ${shape.hostname} does not resolve`;
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (verdict !== 'public') return `host ${shape.hostname} resolves to a ${verdict} address (${address})`;
  }
  return null;
}
