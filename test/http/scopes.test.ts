import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/keys/scopes.js';
import { call, createKey, createTestApp, expectProblem, type TestApp } from '../helpers/app.js';

const UUID = '00000000-0000-4000-8000-000000000000';

// The route table is read from a real app so every endpoint added later joins the matrix.
const probe = await createTestApp();
// Console-only routes check the same scopes for the session's key (test/http/console.test.ts).
const scoped = probe.routes.filter((r) => r.scope !== null && r.scope !== 'any' && !r.consoleOnly);
await probe.close();

describe('scope matrix', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('covers every authenticated endpoint', () => {
    expect(scoped.length).toBeGreaterThanOrEqual(6);
    expect(probe.routes.filter((r) => r.url.startsWith('/v1/') && r.scope === null && !r.public)).toEqual([]);
  });

  describe.each(scoped.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', (_name, route) => {
    it(`answers 403 insufficient_scope naming ${route.scope} to a key without it`, async () => {
      const others = SCOPES.filter((s) => s !== route.scope);
      const { key } = await createKey(t.app, t.adminKey, { name: `without ${route.scope}`, scopes: others });
      const url = route.url.replace(/:[a-z_]+/g, UUID);
      const res = await call(t.app, key, route.method as 'GET', url, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
      const body = expectProblem(res, 403, 'insufficient_scope');
      expect(body.required_scope).toBe(route.scope);
      expect(body.detail).toContain(String(route.scope));
    });
  });
});
