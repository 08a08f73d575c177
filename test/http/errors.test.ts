import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorRegistry } from '../../src/core/errors.js';
import { call, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('problem+json', () => {
  it('answers unknown routes with 404 not_found', async () => {
    expectProblem(await call(t.app, t.adminKey, 'GET', '/v1/nope'), 404, 'not_found');
    expectProblem(await call(t.app, null, 'GET', '/nope'), 404, 'not_found');
    expectProblem(await call(t.app, null, 'GET', '/console/nope'), 404, 'not_found');
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await call(t.app, t.adminKey, 'PATCH', '/v1/keys');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, POST');
    const one = await call(t.app, t.adminKey, 'PUT', '/v1/keys/00000000-0000-4000-8000-000000000000');
    expectProblem(one, 405, 'method_not_allowed');
    expect(one.headers.allow).toBe('GET, POST, DELETE');
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expectProblem(res, 400, 'invalid_json');
  });

  it('answers a wrong content type with 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: { 'x-api-key': t.adminKey, 'content-type': 'text/plain' }, payload: 'name=x' });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('answers an oversized body with 413 before reading it all', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(300 * 1024) });
    const res = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' }, payload });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('names each invalid and unknown field', async () => {
    const res = await call(t.app, t.adminKey, 'POST', '/v1/keys', { name: 7, limt: 3, scopes: ['nope'] });
    const body = expectProblem(res, 400, 'validation_failed');
    const paths = (body.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['body.limt', 'body.name', 'body.scopes.0']);
  });

  it('checks authentication before parsing the body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: { 'content-type': 'application/json' }, payload: '{bad' });
    expectProblem(res, 401, 'missing_api_key');
  });
});

describe('documentation', () => {
  it('serves an OpenAPI 3.1 document generated from the schemas', async () => {
    const res = await call(t.app, null, 'GET', '/v1/openapi.json');
    expectStatus(res, 200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/v1' }]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/keys', '/keys/{key_id}', '/keys/{key_id}/rotate']));
    const create = doc.paths['/keys'].post;
    expect(JSON.stringify(create.requestBody)).toContain('rate_limit_per_minute');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '409', '429']));
    // UCP's binding lives beside /v1: its paths name the root as their server.
    for (const path of ['/ucp/catalog/search', '/.well-known/ucp']) expect(doc.paths[path].servers, path).toEqual([{ url: '/' }]);
    expect(doc.paths['/feeds'].servers).toBeUndefined();
  });

  it('serves the reference page and every error code', async () => {
    expectStatus(await call(t.app, null, 'GET', '/docs'), 200);
    const errors = await call(t.app, null, 'GET', '/docs/errors');
    expectStatus(errors, 200);
    for (const code of Object.keys(errorRegistry)) expect(errors.body).toContain(`id="${code}"`);
  });

  it('answers health and readiness probes without a key', async () => {
    expect((await call(t.app, null, 'GET', '/healthz')).json()).toEqual({ status: 'ok' });
    expect((await call(t.app, null, 'GET', '/readyz')).json()).toMatchObject({ status: 'ok', migrations: 'current' });
  });
});
