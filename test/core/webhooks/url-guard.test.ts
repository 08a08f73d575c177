import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/core/webhooks/retry-policy.js';
import { checkUrlShape, checkWebhookUrl, classifyAddress } from '../../../src/core/webhooks/url-guard.js';

describe('classifyAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])(
    'calls %s public',
    (ip) => expect(classifyAddress(ip)).toBe('public'),
  );
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['2001:db8::1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['ff02::1', 'multicast'],
    ['not an ip', 'invalid'],
  ])('calls %s %s', (ip, kind) => expect(classifyAddress(ip)).toBe(kind));
});

describe('checkUrlShape and checkWebhookUrl', () => {
  it('accepts public https URLs and, with allow-private, local http ones', async () => {
    expect(checkUrlShape('https://hooks.example.com/aisle?x=1', false).ok).toBe(true);
    expect(checkUrlShape('http://127.0.0.1:8080/hook', true).ok).toBe(true);
    const resolver = { resolve: async () => ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] };
    expect(await checkWebhookUrl('https://hooks.example.com/', { allowPrivate: false, resolver })).toBeNull();
  });

  it('refuses a host that does not resolve, or resolves to nothing', async () => {
    const failing = { resolve: () => Promise.reject(new Error('ENOTFOUND')) };
    expect(await checkWebhookUrl('https://nowhere.example/', { allowPrivate: false, resolver: failing })).toMatch(/does not resolve/);
    expect(await checkWebhookUrl('https://nowhere.example/', { allowPrivate: false, resolver: { resolve: async () => [] } })).toMatch(/does not resolve/);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');
  it.each([
    ['120', 120_000],
    ['Sun, 22 Nov 2026 10:00:30 GMT', 30_000],
    ['Sun, 22 Nov 2026 09:00:00 GMT', 0],
    ['soon', null],
    ['-5', null],
    ['1.5', null],
  ])('reads %s as %s ms', (value, ms) => expect(parseRetryAfter(value, now)).toBe(ms));
});
