import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const secret = (c: string) => c.repeat(32);

describe('loadConfig: click links', () => {
  it.each([
    [{}, 'http://127.0.0.1:8787'],
    [{ HOST: '0.0.0.0', PORT: '9000' }, 'http://127.0.0.1:9000'],
    [{ AISLE_BASE_URL: 'https://api.example.com/v1' }, 'https://api.example.com'],
    [{ AISLE_BASE_URL: 'https://api.example.com/v1', AISLE_PUBLIC_URL: 'https://go.example.com/' }, 'https://go.example.com'],
  ])('derives the public base URL from %j', (env, expected) => {
    expect(loadConfig(env).clickLinks.publicBaseUrl).toBe(expected);
  });

  it('reads AISLE_CLICK_SECRET as a newest-first list and refuses short secrets', () => {
    expect(loadConfig({ AISLE_CLICK_SECRET: `${secret('a')}, ${secret('b')}` }).clickLinks.secrets).toEqual([secret('a'), secret('b')]);
    expect(loadConfig({}).clickLinks.secrets).toEqual([]);
    expect(() => loadConfig({ AISLE_CLICK_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ AISLE_PUBLIC_URL: 'ftp://x' })).toThrow(ConfigError);
  });
});
