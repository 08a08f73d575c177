import { describe, expect, it } from 'vitest';
import { childEnv, runTs, tempDir } from '../helpers/process.js';

async function aisle(dataDir: string, ...args: string[]) {
  const child = runTs('tools/aisle.ts', args, childEnv(dataDir));
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('operator CLI (npm run aisle)', () => {
  it('creates accounts and keys on the configured database', async () => {
    const dataDir = tempDir('cli');
    const account = await aisle(dataDir, 'accounts', 'create', '--name', 'acme', '--json');
    expect(account.code, account.stderr).toBe(0);
    const a = JSON.parse(account.stdout);
    expect(a.api_key).toMatch(/^aisle_sk_[0-9A-Za-z]{36}$/);
    expect(a.scopes.split(',')).toHaveLength(6);

    const key = await aisle(dataDir, 'keys', 'create', '--account', a.account_id, '--name', 'prod agent', '--scopes', 'search,events:write');
    expect(key.code, key.stderr).toBe(0);
    expect(key.stdout).toMatch(/^account_id\s+[0-9a-f-]{36}$/m);
    expect(key.stdout).toMatch(/^scopes\s+search,events:write$/m);
    expect(key.stdout).toMatch(/^api_key\s+aisle_sk_[0-9A-Za-z]{36}$/m);

    const badScope = await aisle(dataDir, 'keys', 'create', '--account', a.account_id, '--name', 'x', '--scopes', 'admin');
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('Invalid argument');
    const unknownAccount = await aisle(dataDir, 'keys', 'create', '--account', '00000000-0000-4000-8000-000000000000', '--name', 'x');
    expect(unknownAccount.code).toBe(1);
    expect(unknownAccount.stderr).toContain('No account');
    const usage = await aisle(dataDir, 'frobnicate');
    expect(usage.code).toBe(64);
    expect(usage.stderr).toContain('Usage:');
  });
});
