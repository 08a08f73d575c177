/**
 * What does reading a conversation cost? `npm run bench:conversation`: the search core (as REST
 * and MCP call it, in-process, PGlite) on the Home Depot catalog, with the model an import fits,
 * searches product queries (Home Depot dev queries) and conversations (the project's Home Depot
 * conversations, data/eval/conversation/homedepot_dev.jsonl) in alternating rounds after a warm-up
 * of each, and reports CPU (the process's, embedding thread included) and wall time per search,
 * medians over the rounds, and the conversation's ratio to the product query. The embedder's
 * query cache is off, so every round embeds every text.
 * docs/benchmarks.md; the figures against the code before conversations were read: docs/decisions/0008-judging-the-conversation-reading.md.
 */
// First, so that the command line is checked before anything else loads (conversation.command.ts).

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJsonLines } from '../../src/cli/files.js';
import { importCatalog } from '../../src/core/catalog/import.js';
import { systemClock } from '../../src/core/clock.js';
import { createCore } from '../../src/core/index.js';
import { readRankingModel } from '../../src/core/ranking/ranking.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { SearchRequestSchema } from '../../src/core/schemas/search.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { createLogger } from '../../src/logger.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { createPgStores, migrate, openDb } from '../../src/store/pg/index.js';
import { REPO_ROOT } from '../repo-root.js';
import { sharedPath } from '../shared-data.js';
import { benchCatalogRecords } from './bench-catalog.js';
import { cli } from './conversation.command.js';
import { formatTable, median, round } from './lib.js';

const queryCount = cli.number('queries', { integer: true, positive: true, default: 300 });
const rounds = cli.number('rounds', { integer: true, positive: true, default: 3 });

interface Conversation {
  query: string;
  conversation_context?: { role: 'user' | 'assistant'; content: string }[];
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-conversation-'));
  try {
    // No query cache: the rounds repeat their texts, and every embedding must reach the model as
    // a new request's would.
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(work, 'models'), queryCacheSize: 0 });
    const catalog = await LanceCatalogStore.open({
      recallDepth: RETRIEVAL_DEPTH,
      uri: cli.values['catalog-uri'] ?? join(work, 'catalog'),
      annThreshold: 20_000,
      annIndex: 'ivf_hnsw_sq',
    });
    if ((await catalog.info()) === null) {
      const products = sharedPath('data/eval/homedepot/products.jsonl');
      process.stderr.write(`importing ${products ?? '54,667 synthetic products'} with the cold-start fit (a few minutes)…\n`);
      const records = await benchCatalogRecords(products);
      await importCatalog(records, { catalog, embedder }, { replace: true, dryRun: false, fitRanking: true });
    }
    const db = await openDb({ kind: 'pglite-memory' });
    await migrate(db);
    const rankingModel = await readRankingModel(catalog, embedder.model);
    const core = createCore({
      stores: createPgStores(db),
      clock: systemClock,
      logger: createLogger('warn'),
      defaultRateLimitPerMinute: 1e9,
      catalog,
      embedder,
      rankingModel,
    });
    const { account, firstKey } = await core.accounts.create('bench');
    const principal = { accountId: account.id, keyId: firstKey.metadata.id, scopes: firstKey.metadata.scopes, rateLimitPerMinute: 1e9 };
    await core.search().warm();

    const queriesFile = sharedPath('data/eval/homedepot/queries_dev.jsonl');
    const queries = queriesFile
      ? (await readJsonLines<{ query: string }>(queriesFile, queryCount)).map((q) => ({ query: q.query }))
      : Array.from({ length: queryCount }, (_, i) => ({ query: ['cordless drill', 'garden hose', 'ceiling fan', 'toilet seat', 'deck stain'][i % 5]! }));
    const conversations = (await readJsonLines<Conversation>(join(REPO_ROOT, 'data/eval/conversation/homedepot_dev.jsonl'))).map((c) => ({
      query: c.query,
      conversation_context: c.conversation_context ?? [],
    }));
    const search = (body: object) => core.search().search(principal, SearchRequestSchema.parse({ limit: 10, ...body }));
    // Warm-up: V8's optimised code and the examples' embeddings, not the service, would be measured otherwise.
    for (const body of [...queries.slice(0, 30), ...conversations.slice(0, 30)]) await search(body);

    const measure = async (items: readonly object[]) => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (const body of items) await search(body);
      const used = process.cpuUsage(cpu);
      return { cpu: (used.user + used.system) / 1000 / items.length, wall: (performance.now() - started) / items.length };
    };
    const runs = { query: [] as { cpu: number; wall: number }[], conversation: [] as { cpu: number; wall: number }[] };
    for (let r = 0; r < rounds; r++) {
      runs.query.push(await measure(queries));
      runs.conversation.push(await measure(conversations));
    }
    const summary = (kind: keyof typeof runs) => ({
      cpu_ms: round(median(runs[kind].map((m) => m.cpu)), 2),
      wall_ms: round(median(runs[kind].map((m) => m.wall)), 2),
    });
    const query = summary('query');
    const conversation = summary('conversation');
    process.stdout.write(
      `Searches through the core on ${(await catalog.info())?.productCount.toLocaleString('en-US')} products, ${rounds} alternating rounds, medians (load average ${loadavg()[0]!.toFixed(2)}):\n`,
    );
    process.stdout.write(
      formatTable(
        ['search', 'n', 'CPU ms', 'wall ms'],
        [
          ['product query', String(queries.length), String(query.cpu_ms), String(query.wall_ms)],
          ['conversation', String(conversations.length), String(conversation.cpu_ms), String(conversation.wall_ms)],
          ['ratio', '', String(round(conversation.cpu_ms / query.cpu_ms, 2)), String(round(conversation.wall_ms / query.wall_ms, 2))],
        ],
      ),
    );
    process.stdout.write(
      `\nBENCH_JSON ${JSON.stringify({ bench: 'conversation', query, conversation, cpu_ratio: round(conversation.cpu_ms / query.cpu_ms, 3), rounds })}\n`,
    );
    await db.close();
    await catalog.close();
    await embedder.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
