/**
 * Ordinary shopping is never silenced as a sensitive topic: 300 everyday shopping conversations,
 * 14 or more for each of the taxonomy's 21 verticals, many of them brushing against words a crude
 * filter would take for grief, self-harm, an emergency, violence or a child at risk (a first aid
 * kit for a hike, a heating pad for cramps, an assault bike, a pet left alone all day), written
 * for Aisle (test/fixtures/everyday-shopping.jsonl). Searched over REST on the sample catalog, as
 * an agent sends them; neither the patterns nor the likeness to the written examples may fire.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sensitiveTopic } from '../../src/core/understanding/sensitive.js';
import { call, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

interface Conversation {
  id: string;
  vertical: string;
  query: string;
  conversation_context?: { role: 'user' | 'assistant'; content: string }[];
}

/**
 * The one still read as a sensitive topic (docs/search.md, "Sensitive topics"): its earlier turn,
 * "I'm trying to eat more protein.", is as close to the self-harm example about not eating
 * (0.686) as a real eating-disorder conversation's turn is (0.685), and nearer to it than to any
 * ordinary talk. Listed so the test still fails on any other, and on this one being fixed unnoticed.
 */
const KNOWN_MISS = 'es-103';

const conversations = readFileSync(new URL('../fixtures/everyday-shopping.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Conversation);

let sample: SampleCatalog;
let t: TestApp;
beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample });
});
afterAll(async () => {
  await t?.close();
  await sample?.close();
});

describe('everyday shopping conversations', () => {
  it('cover all 21 verticals with 300 conversations', () => {
    expect(conversations).toHaveLength(300);
    expect(new Set(conversations.map((c) => c.vertical)).size).toBe(21);
  });

  it('match none of the sensitive-topic patterns', () => {
    const flagged = conversations
      .map((c) => ({ id: c.id, topic: sensitiveTopic([c.query, ...(c.conversation_context ?? []).map((t) => t.content)]), query: c.query }))
      .filter((c) => c.topic !== null);
    expect(flagged).toEqual([]);
  });

  it('are never answered as a sensitive topic over REST', async () => {
    const silenced: { id: string; query: string }[] = [];
    for (const c of conversations) {
      const res = await call(t.app, t.adminKey, 'POST', '/v1/search', {
        query: c.query,
        ...(c.conversation_context ? { conversation_context: c.conversation_context } : {}),
        limit: 3,
      });
      expectStatus(res, 200);
      if ((res.json() as { metadata: { no_fill_reason: string | null } }).metadata.no_fill_reason === 'sensitive_topic')
        silenced.push({ id: c.id, query: c.query });
    }
    expect(silenced.map((s) => s.id)).toEqual([KNOWN_MISS]);
  }, 120_000);
});
