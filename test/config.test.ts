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

describe('loadConfig: request log', () => {
  it('is on with a 1 s flush and 400 days of retention by default; each is configurable', () => {
    expect(loadConfig({}).requestLog).toEqual({ enabled: true, flushMs: 1000, retentionDays: 400 });
    expect(loadConfig({ AISLE_REQUEST_LOG: 'false', AISLE_REQUEST_LOG_FLUSH_MS: '250', AISLE_REQUEST_LOG_RETENTION_DAYS: '30' }).requestLog).toEqual({ enabled: false, flushMs: 250, retentionDays: 30 });
    expect(() => loadConfig({ AISLE_REQUEST_LOG_RETENTION_DAYS: '0' })).toThrow(ConfigError);
  });
});
