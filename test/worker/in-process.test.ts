import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Child, childEnv, runTs, seededDataDir } from '../helpers/process.js';
import { Receiver } from '../helpers/webhooks.js';

const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.proc.kill('SIGKILL');
});

describe('npm start runs the webhook worker in-process', () => {
  it('delivers a signed test event with no separate worker, and stops cleanly', async () => {
    const receiver = await Receiver.start();
    try {
      // Nothing here searches: an unreachable OpenAI-compatible embedder with a declared size is never called,
      // which spares the suite a second local model build next to test/main.test.ts.
      const server = runTs(
        'src/main.ts',
        [],
        childEnv(await seededDataDir('wh-main', { catalog: false }), {
          AISLE_SAMPLE_CATALOG: 'false',
          AISLE_EMBEDDING_PROVIDER: 'openai',
          AISLE_EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1',
          AISLE_EMBEDDING_MODEL: 'unused',
          AISLE_EMBEDDING_DIMENSIONS: '8',
          AISLE_WEBHOOK_ALLOW_PRIVATE: 'true',
          AISLE_WEBHOOK_POLL_MS: '50',
        }),
      );
      children.push(server);
      const [, key] = await server.waitForStderr(/API key, shown only now: (aisle_sk_[0-9A-Za-z]{36})\n/);
      const [, base] = await server.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const headers = { 'x-api-key': key!, 'content-type': 'application/json' };
      const created = await fetch(`${base}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url(), events: ['feedback'] }) });
      expect(created.status).toBe(201);
      const { id, secret } = (await created.json()) as { id: string; secret: string };
      const test = await fetch(`${base}/v1/webhooks/${id}/test`, { method: 'POST', headers, body: '{}' });
      expect(test.status).toBe(202);
      const { event_id } = (await test.json()) as { event_id: string };

      const deadline = Date.now() + 10_000;
      while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const got = receiver.received[0]!;
      expect(new Webhook(secret).verify(got.body, got.headers)).toMatchObject({
        id: event_id,
        type: 'feedback',
        test: true,
        data: { feedback_id: expect.stringMatching(/^fb_/) },
      });

      const list = await fetch(`${base}/v1/webhooks/${id}/deliveries?status=succeeded`, { headers });
      expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
      server.proc.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.stderr()).not.toContain(secret.slice(6));
    } finally {
      await receiver.close();
    }
  });
});
