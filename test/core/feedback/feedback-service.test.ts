import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedbackService } from '../../../src/core/feedback/feedback-service.js';
import type { FeedbackStore } from '../../../src/core/feedback/ports.js';
import type { Embedder } from '../../../src/core/shared-ports.js';
import { createLogger } from '../../../src/logger.js';
import { PgFeedbackStore } from '../../../src/store/pg/feedback-store.js';
import { ManualClock } from '../../helpers/app.js';
import { seededRandom } from '../../helpers/catalog.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { openSharedEmbedder } from '../../helpers/search.js';

const QUERIES = ['trail running shoes', 'trail running shoe', 'espresso machine', 'camping tent'];
const logger = createLogger('silent');

let testDb: TestDb;
let store: PgFeedbackStore;
let embedder: Embedder;
let vectors: Float32Array[];

beforeAll(async () => {
  testDb = await createTestDb();
  store = new PgFeedbackStore(testDb.db);
  embedder = await openSharedEmbedder();
  vectors = await embedder.embed(QUERIES);
});
afterAll(async () => {
  await embedder.close();
  await testDb.cleanup();
});

async function newAccount(): Promise<string> {
  const id = randomUUID();
  await testDb.db.query(`INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, now())`, [id, `feedback ${id}`]);
  return id;
}

async function newSearch(accountId: string, query: number): Promise<{ id: string; query: number }> {
  const id = randomUUID();
  await testDb.db.query(
    `INSERT INTO search_requests (id, account_id, key_id, session_id, query, normalized_query, result_count, total_matches, took_ms, created_at)
     VALUES ($1, $2, $2, $1, $3, $3, 10, 10, 1, now())`,
    [id, accountId, QUERIES[query]],
  );
  return { id, query };
}

function vote(accountId: string, search: { id: string; query: number }, productId: string, relevant: boolean, createdAt: Date) {
  return store.insert({
    id: randomUUID(),
    accountId,
    keyId: accountId,
    requestId: search.id,
    productId,
    relevant,
    reason: null,
    userClicked: null,
    query: QUERIES[search.query]!,
    model: embedder.model,
    queryVector: vectors[search.query]!,
    createdAt,
  });
}

describe('FeedbackService: the votes a long-running process holds', () => {
  it('match a fresh read after every change: new votes, re-votes, a clock 3 s behind, more votes than it considers', async () => {
    const accountId = await newAccount();
    const clock = new ManualClock('2026-03-01T12:00:00Z');
    const service = (votesConsidered: number) => new FeedbackService({ store, clock, logger, embedder, votesConsidered });
    const live = service(25);
    const random = seededRandom(42); // the same sequence of votes on every run
    const products = Array.from({ length: 6 }, () => randomUUID());
    const searches: { id: string; query: number }[] = [];
    let compared = 0;
    let demoted = 0;
    for (let step = 0; step < 90; step++) {
      clock.advance(400);
      const search =
        searches.length > 0 && random() < 0.3
          ? searches[Math.floor(random() * searches.length)]!
          : await newSearch(accountId, Math.floor(random() * QUERIES.length));
      if (!searches.includes(search)) searches.push(search);
      // Another process, its clock 3 s behind: its votes land below the newest one held.
      const behind = random() < 0.25;
      await vote(accountId, search, products[Math.floor(random() * products.length)]!, random() < 0.3, new Date(clock.now().getTime() - (behind ? 3_000 : 0)));
      // A vote stamped below the newest does not change the account's version; the next one on time does.
      if (behind || step % 3 !== 0) continue;
      for (const query of QUERIES) {
        const held = await live.demotions(accountId, query);
        expect([...held].sort(), `step ${step}, "${query}"`).toEqual([...(await service(25).demotions(accountId, query))].sort());
        compared += 1;
        if (held.size > 0) demoted += 1;
      }
    }
    // The comparison means something only if votes steered some of them.
    expect(compared).toBeGreaterThan(60);
    expect(demoted).toBeGreaterThan(compared / 4);
  });

  it('reads a vote stamped further back than the clock margin within a minute', async () => {
    const accountId = await newAccount();
    const clock = new ManualClock('2026-03-02T12:00:00Z');
    const live = new FeedbackService({ store, clock, logger, embedder });
    const [first, late, next] = [await newSearch(accountId, 2), await newSearch(accountId, 0), await newSearch(accountId, 2)];
    await vote(accountId, first, randomUUID(), false, clock.now());
    expect((await live.demotions(accountId, QUERIES[0]!)).size).toBe(0);

    const product = randomUUID();
    clock.advance(1_000);
    await vote(accountId, late, product, false, new Date(clock.now().getTime() - 30_000)); // a clock 30 s behind
    clock.advance(1_000);
    await vote(accountId, next, randomUUID(), false, clock.now());
    expect((await live.demotions(accountId, QUERIES[0]!)).has(product), 'not yet: it is older than the margin').toBe(false);

    clock.advance(60_000);
    await vote(accountId, next, randomUUID(), true, clock.now());
    expect((await live.demotions(accountId, QUERIES[0]!)).get(product)).toBeLessThan(1);
  });

  it('lets searches that see the same change share one read', async () => {
    const accountId = await newAccount();
    const clock = new ManualClock('2026-03-03T12:00:00Z');
    let reads = 0;
    const counting: FeedbackStore = {
      findSearch: (a, r) => store.findSearch(a, r),
      insert: (f) => store.insert(f),
      version: (a) => store.version(a),
      votes: (...args) => {
        reads += 1;
        return store.votes(...args);
      },
    };
    const live = new FeedbackService({ store: counting, clock, logger, embedder });
    const product = randomUUID();
    await vote(accountId, await newSearch(accountId, 0), product, false, clock.now());
    const answers = await Promise.all(Array.from({ length: 8 }, () => live.demotions(accountId, QUERIES[1]!)));
    expect(reads).toBe(1);
    for (const a of answers) expect(a.get(product)).toBeLessThan(1);

    clock.advance(1_000);
    await vote(accountId, await newSearch(accountId, 3), randomUUID(), false, clock.now());
    await Promise.all(Array.from({ length: 8 }, () => live.demotions(accountId, QUERIES[1]!)));
    expect(reads).toBe(2);
  });
});
