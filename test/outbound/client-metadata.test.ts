/**
 * The Client ID Metadata Document fetch (docs/oauth.md) against a real https server on
 * 127.0.0.1 with a test-only certificate, trusted as an extra certificate authority.
 */
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetadataFetch } from '../../src/core/oauth/ports.js';
import { DEFAULT_CACHE_MS, freshnessMs, HttpClientMetadataFetcher, MAX_CACHE_MS, MAX_DOCUMENT_BYTES } from '../../src/outbound/client-metadata.js';
import { type LookupAll, systemLookupAll } from '../../src/outbound/dns.js';
import { HttpsDocuments, jsonDocument, TEST_CA } from '../helpers/tls.js';

const doc = { client_id: 'x', redirect_uris: ['https://app.example/cb'] };
let server: HttpsDocuments;
const fetchers: HttpClientMetadataFetcher[] = [];

/** Names standing in for DNS: a public-looking name that resolves to this machine. */
const lookupAll: LookupAll = (hostname, callback) => {
  if (hostname === 'client.test') return callback(null, [{ address: '127.0.0.1', family: 4 } satisfies LookupAddress]);
  return systemLookupAll(hostname, callback);
};

function fetcher(options: Partial<ConstructorParameters<typeof HttpClientMetadataFetcher>[0]> = {}): HttpClientMetadataFetcher {
  const f = new HttpClientMetadataFetcher({ allowPrivate: true, extraCa: TEST_CA, lookupAll, ...options });
  fetchers.push(f);
  return f;
}

const reasonOf = (r: MetadataFetch): string => (r.ok ? 'ok' : r.reason);

beforeAll(async () => {
  server = await HttpsDocuments.start({
    '/client.json': jsonDocument(doc, { 'cache-control': 'max-age=60' }),
    '/uncached.json': jsonDocument(doc, { 'cache-control': 'no-store' }),
    '/plain.json': jsonDocument(doc),
    '/exactly-5k.json': jsonDocument(JSON.stringify({ ...doc, pad: 'x'.repeat(MAX_DOCUMENT_BYTES - JSON.stringify({ ...doc, pad: '' }).length) })),
    '/too-large.json': jsonDocument(JSON.stringify({ ...doc, pad: 'x'.repeat(MAX_DOCUMENT_BYTES) })),
    '/not-json.json': jsonDocument('<html>hello</html>'),
    '/redirect.json': (_req, res) => void res.writeHead(302, { location: '/client.json' }).end(),
    '/slow.json': () => undefined,
  });
});
afterAll(async () => {
  for (const f of fetchers) await f.close();
  await server.close();
});

describe('HttpClientMetadataFetcher', () => {
  it('fetches a JSON document over https from a server it trusts', async () => {
    expect(await fetcher().fetch(server.url('/plain.json'))).toEqual({ ok: true, document: doc });
  });

  it('trusts the system authorities plus the extra one only: a self-signed server is refused without it', async () => {
    const result = await fetcher({ extraCa: undefined }).fetch(server.url('/plain.json'));
    expect(result.ok).toBe(false);
    expect(reasonOf(result)).toMatch(/certificate|SELF_SIGNED|CERT/i);
  });

  it('refuses loopback, private and reserved addresses by name and at connect time unless allowed', async () => {
    const before = server.connections;
    const guarded = fetcher({ allowPrivate: false });
    expect(reasonOf(await guarded.fetch(server.url('/plain.json')))).toContain('loopback address (127.0.0.1)');
    expect(reasonOf(await guarded.fetch(server.url('/plain.json', 'localhost')))).toContain('local host');
    // A public-looking name that resolves here is refused as the socket would connect.
    expect(reasonOf(await guarded.fetch(server.url('/plain.json', 'client.test')))).toContain('client.test resolves to a loopback address');
    expect(reasonOf(await guarded.fetch('https://10.1.2.3/client.json'))).toContain('private address');
    expect(server.connections).toBe(before);
    // Allowed (local development and tests), the same name reaches the server.
    expect(await fetcher().fetch(server.url('/plain.json', 'client.test'))).toEqual({ ok: true, document: doc });
  });

  it('fetches https only, even where private addresses are allowed', async () => {
    expect(reasonOf(await fetcher().fetch(`http://127.0.0.1:${server.port}/plain.json`))).toContain('https');
  });

  it('never follows a redirect', async () => {
    const target = server.count('/client.json');
    expect(reasonOf(await fetcher().fetch(server.url('/redirect.json')))).toContain('redirect (HTTP 302)');
    expect(server.count('/client.json')).toBe(target);
  });

  it('takes at most 5 KB, JSON only, and a 200 only', async () => {
    expect((await fetcher().fetch(server.url('/exactly-5k.json'))).ok).toBe(true);
    expect(reasonOf(await fetcher().fetch(server.url('/too-large.json')))).toContain(`larger than ${MAX_DOCUMENT_BYTES} bytes`);
    expect(reasonOf(await fetcher().fetch(server.url('/not-json.json')))).toContain('not JSON');
    expect(reasonOf(await fetcher().fetch(server.url('/missing.json')))).toContain('HTTP 404');
  });

  it('gives up on a server that does not answer within its time bound', async () => {
    expect(reasonOf(await fetcher({ timeoutMs: 300 }).fetch(server.url('/slow.json')))).toContain('timeout');
  });

  it('reuses a document as its caching headers allow, refetches one marked no-store, and remembers failures', async () => {
    const f = fetcher();
    for (let i = 0; i < 3; i++) {
      await f.fetch(server.url('/client.json'));
      await f.fetch(server.url('/uncached.json'));
      await f.fetch(server.url('/gone.json'));
    }
    expect(server.count('/client.json')).toBe(1);
    expect(server.count('/uncached.json')).toBe(3);
    expect(server.count('/gone.json')).toBe(1);
  });
});

describe('freshnessMs', () => {
  it.each([
    [{}, DEFAULT_CACHE_MS],
    [{ 'cache-control': 'max-age=60' }, 60_000],
    [{ 'cache-control': 'public, max-age=120', age: '20' }, 100_000],
    [{ 'cache-control': 'max-age=999999999' }, MAX_CACHE_MS],
    [{ 'cache-control': 'no-store' }, 0],
    [{ 'cache-control': 'no-cache, max-age=60' }, 0],
    [{ expires: 'Wed, 25 Nov 2026 10:10:00 GMT', date: 'Wed, 25 Nov 2026 10:00:00 GMT' }, 600_000],
    [{ expires: '0', date: 'Wed, 25 Nov 2026 10:00:00 GMT' }, 0],
    [{ expires: 'not a date' }, 0],
  ])('reads %j as %i ms', (headers, ms) => {
    expect(freshnessMs(headers)).toBe(ms);
  });
});
