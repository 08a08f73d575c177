import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

// Conversations over REST on the sample catalog (docs/search.md, "Conversations"): what the need
// becomes, the two decisions, sensitive topics, sessions against conversation_context, and the
// explanation. The sample catalog serves with the fallback ranking model and the default
// conversation model, as a server does before an import fits its own.

let sample: SampleCatalog;
let t: TestApp;
beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample });
});
afterAll(async () => {
  await t.close();
  await sample.close();
});

interface Body {
  request_id: string;
  results: { product_id: string; title: string; category: string; relevance_score: number; relevance_explanation: string }[];
  metadata: { total_matches: number; session_id: string; interpreted_query: string; no_fill_reason: string | null; pii_redacted: string[] };
}

type TurnIn = { role: 'user' | 'assistant'; content: string };

async function search(body: Record<string, unknown>): Promise<Body> {
  const res = await call(t.app, t.adminKey, 'POST', '/v1/search', body);
  expectStatus(res, 200);
  return res.json() as Body;
}

const say = (query: string, ...before: string[]) => ({ query, conversation_context: before.map((content) => ({ role: 'user', content }) as TurnIn) });

describe('POST /v1/search with a conversation', () => {
  it('reads the need from the conversation: the catalog words of the last turn over the talk, earlier turns for what is left open', async () => {
    const body = await search({ ...say('I realised I have nothing to grind them with', 'I just bought whole coffee beans.'), limit: 5 });
    expect(body.metadata.no_fill_reason).toBeNull();
    expect(body.metadata.interpreted_query).toMatch(/coffee/);
    expect(body.metadata.interpreted_query).not.toMatch(/\b(?:realised|nothing|bought)\b/);
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results[0]!.category).toMatch(/Coffee/);
    for (const r of body.results) expect(r.relevance_score).toBeGreaterThanOrEqual(0.5);
  });

  it('takes the person over the assistant and the last turn over earlier ones', async () => {
    const body = await search({
      query: 'actually I need a tent for that trip',
      conversation_context: [
        { role: 'user', content: 'We are going camping in the mountains next month.' },
        { role: 'assistant', content: 'Nice! Do you need hiking boots or a sleeping bag?' },
      ],
      limit: 5,
    });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results[0]!.category).toBe('Outdoor > Camping > Tents');
    expect(body.metadata.interpreted_query.split(' ')).toContain('tent');
    expect(body.metadata.interpreted_query).not.toMatch(/boots/);
  });

  it('reads a recipient as the modifier it means, not as the product', async () => {
    const body = await search({ query: 'a gift for my dad who likes coffee', limit: 5 });
    expect(body.metadata.interpreted_query).toMatch(/coffee/);
    expect(body.metadata.interpreted_query).not.toMatch(/\bdad\b/);
    expect(body.results.length).toBeGreaterThan(0);
    for (const r of body.results) expect(r.category, r.title).toMatch(/Coffee/);
  });

  it('names the matched words and the earlier turn in the explanation', async () => {
    const body = await search({ ...say('which one is good for rainy trails?', 'I need trail running shoes'), limit: 3 });
    expect(body.results.length).toBeGreaterThan(0);
    const explanation = body.results[0]!.relevance_explanation;
    expect(explanation).toMatch(/^Matches "/);
    expect(explanation).toMatch(/"trail"/);
    expect(explanation).toContain('continues "I need trail running shoes"');
  });

  it('answers a conversation without a shopping need with nothing, and says why', async () => {
    for (const [query, ...before] of [
      ['who wrote pride and prejudice?'],
      ['how do I politely ask for an extension?', 'I am writing an email to my professor.'],
      ['can you make it shorter?', 'Write a haiku about autumn leaves.'],
    ] as string[][]) {
      const body = await search(say(query!, ...before));
      expect(body.results, query).toEqual([]);
      expect(body.metadata.no_fill_reason, query).toBe('no_shopping_need');
      expect(body.metadata.interpreted_query, query).toBe('');
    }
  });

  it('shows no products beside a sensitive topic, whatever the words and the threshold', async () => {
    const cases: [string, string[]][] = [
      ['do I need to buy a black suit for the funeral?', ['My dad died on Tuesday.']],
      ['I keep thinking about ending my life', []],
      ['my toddler swallowed a battery, what do I do', []],
      ['who should I vote for in the election?', []],
    ];
    for (const [query, before] of cases) {
      const body = await search({ ...say(query, ...before), min_relevance_score: 0, limit: 10 });
      expect(body.results, query).toEqual([]);
      expect(body.metadata.no_fill_reason, query).toBe('sensitive_topic');
      expect(body.metadata.interpreted_query, query).toBe('');
    }
    // A session's earlier searches count as the conversation's earlier turns here too.
    const grief = await search({ query: 'My grandpa passed away on Tuesday.' });
    expect(grief.metadata.no_fill_reason).toBe('sensitive_topic');
    const after = await search({ query: 'all I have is a navy blazer, is that ok?', session_id: grief.metadata.session_id, min_relevance_score: 0 });
    expect(after.results).toEqual([]);
    expect(after.metadata.no_fill_reason).toBe('sensitive_topic');
    // The same words about a battery that died are a car problem, not grief.
    const car = await search({ ...say('I want to be able to start it myself', 'My car battery died in the parking lot twice.'), limit: 3 });
    expect(car.metadata.no_fill_reason).not.toBe('sensitive_topic');
  });

  it('gives the same answer to turns sent one by one in a session as to the same turns in conversation_context', async () => {
    const turns = ['We are going camping next month.', 'I need a warm sleeping bag'];
    const last = 'something light I can carry on my back';
    const together = await search({ ...say(last, ...turns), limit: 5 });
    let sessionId: string | undefined;
    for (const turn of turns) sessionId = (await search({ query: turn, limit: 5, ...(sessionId ? { session_id: sessionId } : {}) })).metadata.session_id;
    const alone = await search({ query: last, limit: 5, session_id: sessionId });
    expect(alone.metadata.interpreted_query).toBe(together.metadata.interpreted_query);
    // The session demotes what its earlier searches showed (docs/search.md, "Sessions"), so the
    // order may differ; what qualifies, and each product's relevance, are the same.
    expect(alone.metadata.total_matches).toBe(together.metadata.total_matches);
    expect(together.results.length).toBeGreaterThan(0);
    const scores = new Map(together.results.map((r) => [r.product_id, r.relevance_score]));
    const shared = alone.results.filter((r) => scores.has(r.product_id));
    expect(shared.length).toBeGreaterThan(0);
    for (const r of shared) expect(r.relevance_score, r.title).toBe(scores.get(r.product_id));
  });

  it('keeps personal data out of the interpreted query', async () => {
    const body = await search(say('send the tent details to jane.doe@example.com', 'We need a tent for four people.'));
    expect(body.metadata.pii_redacted).toEqual(['email']);
    expect(body.metadata.interpreted_query).not.toMatch(/jane|doe|example|@/);
  });

  it('reads a long conversation within its bounds', async () => {
    const filler = 'We talked about the weather and the garden and the neighbours for a while. '.repeat(50).slice(0, 4000);
    const conversation_context = Array.from({ length: 49 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: filler }));
    const body = await search({ query: 'anyway, I need a yoga mat', conversation_context, limit: 3 });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results[0]!.category).toBe('Sports & Fitness > Yoga > Yoga Mats');
  });

  it('answers a price alone after turns that name nothing by price, as a price alone', async () => {
    const body = await search({ query: 'under $50', conversation_context: [{ role: 'assistant', content: 'Happy to help!' }], limit: 3 });
    expect(body.results.length).toBeGreaterThan(0);
    for (const r of body.results) expect(r.relevance_score).toBe(1);
  });

  it('searches a product query as before: no interpretation beyond the query itself', async () => {
    const body = await search({ query: 'espresso machine', limit: 3 });
    expect(body.metadata.interpreted_query).toBe('espresso machine');
    expect(body.metadata.no_fill_reason).toBeNull();
    const none = await search({ query: 'zzqx flurbogram' });
    expect(none.results).toEqual([]);
    expect(none.metadata.no_fill_reason).toBe('no_relevant_products');
  });
});
