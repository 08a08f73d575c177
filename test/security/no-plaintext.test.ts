import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../src/core/keys/key-secret.js';
import { call, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('key secrets at rest', () => {
  it('stores no plaintext key in any table or log line', async () => {
    // 100 keys through the API: 99 in this account (100 with its admin key, the account limit)
    // and one more in a second account.
    const other = await t.core.accounts.create('second account');
    const secrets: string[] = [t.adminKey, other.firstKey.key];
    for (let i = 0; i < 100; i++) {
      const res = await call(t.app, i < 99 ? t.adminKey : other.firstKey.key, 'POST', '/v1/keys', { name: `agent ${i}`, scopes: ['search'] });
      expectStatus(res, 201);
      secrets.push(res.json().key);
    }
    // Use some of them (success and failure paths both log), rotate one, send one as Bearer.
    for (const key of secrets.slice(2, 12)) expect((await call(t.app, key, 'GET', '/v1/keys')).statusCode).toBe(403);
    await call(t.app, null, 'GET', '/v1/keys', undefined, { authorization: `Bearer ${secrets[5]}` });
    const rotated = await call(t.app, t.adminKey, 'POST', `/v1/keys/${(await call(t.app, t.adminKey, 'GET', '/v1/keys?limit=1')).json().data[0].id}/rotate`);
    expectStatus(rotated, 201);
    secrets.push(rotated.json().key);

    const tables = await t.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    expect(tables.length).toBeGreaterThanOrEqual(3);
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await t.db.query(`SELECT * FROM "${table_name}"`);
      dump += JSON.stringify(rows);
    }
    const logs = t.logs.text;
    expect(logs.length).toBeGreaterThan(1000);
    expect(dump).toContain('agent 99');
    for (const secret of secrets) {
      const body = secret.slice(KEY_PREFIX.length);
      expect(dump.includes(body), 'secret in a table').toBe(false);
      expect(logs.includes(body), 'secret in the logs').toBe(false);
    }
  });
});
