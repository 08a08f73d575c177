import { describe, expect, it } from 'vitest';
import { AffiliateConfigSchema, withAffiliateParams } from '../../../src/core/clicks/affiliate.js';
import { ClickLinkSigner, generateClickSecret } from '../../../src/core/clicks/click-links.js';
import { classifyUserAgent } from '../../../src/core/clicks/user-agents.js';
import { BOT_USER_AGENTS, BROWSER_USER_AGENTS } from './user-agent-samples.js';

const IMP = '6f1c2b9e-3a4d-4e5f-8a7b-1c2d3e4f5a6b';

describe('classifyUserAgent', () => {
  it('has at least 50 real browser samples', () => expect(BROWSER_USER_AGENTS.length).toBeGreaterThanOrEqual(50));

  it.each(BROWSER_USER_AGENTS.map((ua) => [ua]))('treats %s as a browser', (ua) => expect(classifyUserAgent(ua)).toBe('browser'));

  it.each(BOT_USER_AGENTS.map((ua) => [ua]))('treats "%s" as a bot', (ua) => expect(classifyUserAgent(ua)).toBe('bot'));

  it('treats a missing user agent as a bot', () => expect(classifyUserAgent(undefined)).toBe('bot'));
});

describe('ClickLinkSigner', () => {
  const secret = generateClickSecret();
  const signer = new ClickLinkSigner({ publicBaseUrl: 'https://aisle.example.com/', secrets: [secret] });

  it('builds /r/{impression_id}?sig= links that verify, for the bare and the upper-case id', () => {
    const url = new URL(signer.urlFor(IMP));
    expect(url.origin + url.pathname).toBe(`https://aisle.example.com/r/${IMP}`);
    const sig = url.searchParams.get('sig')!;
    expect(sig).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(signer.verify(IMP, sig)).toBe(true);
    expect(signer.verify(IMP.toUpperCase(), sig)).toBe(true);
  });

  it('refuses a changed character, another impression, another secret, and malformed signatures', () => {
    const sig = signer.sign(IMP);
    const flipped = `${sig.slice(0, 5)}${sig[5] === 'A' ? 'B' : 'A'}${sig.slice(6)}`;
    const other = new ClickLinkSigner({ publicBaseUrl: 'https://x', secrets: [generateClickSecret()] });
    expect(signer.verify(IMP, flipped)).toBe(false);
    expect(signer.verify('6f1c2b9e-3a4d-4e5f-8a7b-1c2d3e4f5a6c', sig)).toBe(false);
    expect(other.verify(IMP, sig)).toBe(false);
    for (const bad of [undefined, '', 'x', `${sig}A`, sig.slice(1), '%%%%%%%%%%%%%%%%%%%%%%']) expect(signer.verify(IMP, bad)).toBe(false);
  });

  it('accepts links signed with a previous secret after rotation, and signs with the new one', () => {
    const old = signer.sign(IMP);
    const rotated = new ClickLinkSigner({ publicBaseUrl: 'https://x', secrets: [generateClickSecret(), secret] });
    expect(rotated.verify(IMP, old)).toBe(true);
    expect(rotated.sign(IMP)).not.toBe(old);
    expect(rotated.verify(IMP, rotated.sign(IMP))).toBe(true);
  });
});

describe('withAffiliateParams', () => {
  const config = AffiliateConfigSchema.parse({
    default: { params: { utm_source: 'aisle' } },
    networks: { impact: { params: { irclickid: '{click_id}', subId1: 'aisle' } } },
    merchants: {
      'Trailhead Outfitters': { network: 'impact', params: { subId1: 'trail' } },
      other: { hosts: ['shop.example.org'], params: { tag: 'aisle-20' } },
    },
  });
  const ids = { click_id: 'clk_1', impression_id: 'imp_2', product_id: 'prd_3', request_id: 'req_4' };

  it('layers default, network and merchant parameters, merchant matched by name case-insensitively', () => {
    const url = new URL(withAffiliateParams(config, 'https://trailhead.example.com/p/1?color=red', 'trailhead outfitters', ids));
    expect(Object.fromEntries(url.searchParams)).toEqual({ color: 'red', utm_source: 'aisle', irclickid: 'clk_1', subId1: 'trail' });
  });

  it('matches a merchant by host and leaves unknown merchants with the default only', () => {
    expect(withAffiliateParams(config, 'https://shop.example.org/x', 'Someone', ids)).toBe('https://shop.example.org/x?utm_source=aisle&tag=aisle-20');
    expect(withAffiliateParams(config, 'https://elsewhere.example/x', null, ids)).toBe('https://elsewhere.example/x?utm_source=aisle');
  });

  it('refuses a merchant naming an unknown network', () => {
    expect(AffiliateConfigSchema.safeParse({ merchants: { m: { network: 'nope' } } }).success).toBe(false);
  });
});
