/**
 * Conversational evaluation sets (`npm run eval -- --conversations FILE`): what an agent sends
 * when a person talks rather than types a product query. Each line of FILE is
 * `{"query_id", "query", "conversation_context"?}`: the person's last message and the turns
 * before it. A conversation whose id has judged products (in `qrels_<name>.tsv` beside
 * `queries_<name>.jsonl`, else in the set's own qrels_dev.tsv) is a shopping conversation and is
 * scored by NDCG@10; one without is a conversation with no shopping need, and any product it is
 * answered with is a false fill. docs/relevance.md, "Conversations".
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { newId } from '../../src/core/ids.js';
import type { Core } from '../../src/core/index.js';
import { SearchRequestSchema } from '../../src/core/schemas/search.js';
import type { Principal } from '../../src/core/shared-ports.js';
import { type RunMetrics, scoreRun } from './labelled-set.js';

interface Conversation {
  id: string;
  query: string;
  context: { role: 'user' | 'assistant' | 'system' | 'tool'; content: string }[];
}

export interface ConversationSet {
  /** The file's name without `queries_` and `.jsonl`: "crowdflower_dev". */
  name: string;
  conversations: Conversation[];
  /** The judged rows of this set's shopping conversations: query_id → product_id → grade. */
  judged: Map<string, Map<string, number>>;
}

/** How the agent sends the conversation: as conversation_context of one search, or each user turn as its own search in one session. */
export type ConversationMode = 'context' | 'session';

/** Grades of a qrels file (header skipped), by query. */
function readQrels(path: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [q, p, g] = line.split('\t');
    if (!q || !p || !g || !/^\d+$/.test(g.trim())) continue;
    const row = out.get(q) ?? new Map<string, number>();
    row.set(p, Number(g));
    out.set(q, row);
  }
  return out;
}

/**
 * Reads a conversation file and its grades: `qrels_<name>.tsv` beside `queries_<name>.jsonl` when
 * there is one, else `setQrels` (the labelled set's own, whose query ids the conversations reuse).
 */
export async function readConversationSet(file: string, setQrels: string): Promise<ConversationSet> {
  const base = basename(file).replace(/\.jsonl$/, '');
  const name = base.replace(/^queries_/, '');
  const sibling = join(dirname(file), `qrels_${name}.tsv`);
  const qrels = readQrels(base.startsWith('queries_') && existsSync(sibling) ? sibling : setQrels);
  const rows = await readJsonLines<{ query_id?: unknown; query?: unknown; conversation_context?: unknown }>(file);
  const conversations = rows.map((r, i) => {
    if (typeof r.query_id !== 'string' || typeof r.query !== 'string' || (r.conversation_context != null && !Array.isArray(r.conversation_context)))
      throw new CliError(EXIT.dataError, `${file}: line ${i + 1} needs a string query_id and query, and conversation_context (if any) an array`);
    return { id: r.query_id, query: r.query, context: (r.conversation_context ?? []) as Conversation['context'] };
  });
  const ids = new Set(conversations.map((c) => c.id));
  const judged = new Map([...qrels].filter(([q, grades]) => ids.has(q) && [...grades.values()].some((g) => g > 0)));
  return { name, conversations, judged };
}

/** What one conversation was answered with. */
interface ConversationAnswer {
  id: string;
  /** External ids (else product ids) of the results, best first. */
  products: string[];
  scores: number[];
  titles: string[];
  interpreted: string;
  noFillReason: string | null;
  /** metadata.reader: which reader read it (offline, model, offline_fallback). */
  reader: string;
}

/**
 * Runs every conversation through the real search core: as one search with the earlier turns in
 * conversation_context, or (mode 'session') as the agent that sends each user turn as its own
 * search in one session and scores only the last answer.
 */
async function answerConversations(
  core: Core,
  principal: Principal,
  set: ConversationSet,
  options: { mode: ConversationMode; minRelevance?: number },
): Promise<ConversationAnswer[]> {
  const out: ConversationAnswer[] = [];
  for (const c of set.conversations) {
    const common = { limit: 10, ...(options.minRelevance === undefined ? {} : { min_relevance_score: options.minRelevance }) };
    let request: unknown;
    if (options.mode === 'context') {
      request = { ...common, query: c.query, conversation_context: c.context };
    } else {
      const sessionId = newId();
      for (const turn of c.context.filter((t) => t.role === 'user' && t.content.trim() !== ''))
        await core.search().search(principal, SearchRequestSchema.parse({ ...common, query: turn.content, session_id: sessionId }));
      request = { ...common, query: c.query, session_id: sessionId };
    }
    const response = await core.search().search(principal, SearchRequestSchema.parse(request));
    out.push({
      id: c.id,
      products: response.results.map((r) => r.external_id ?? r.product_id),
      scores: response.results.map((r) => r.relevance_score),
      titles: response.results.map((r) => r.title),
      interpreted: response.metadata.interpreted_query ?? '',
      noFillReason: response.metadata.no_fill_reason ?? null,
      reader: response.metadata.reader,
    });
  }
  return out;
}

/** The figures of one conversation set in one mode. */
export interface ConversationFigures {
  set: string;
  mode: ConversationMode;
  shopping: number;
  noNeed: number;
  /** NDCG@10 of the shopping conversations at the default min_relevance_score (an empty answer scores 0). */
  ndcgShipped: number | null;
  /** NDCG@10 with min_relevance_score 0: the ranking alone. */
  ndcgThresholdOff: number | null;
  /** Share of shopping conversations answered with nothing at the default threshold. */
  noFill: number | null;
  /** Share of conversations without a shopping need answered with products at the default threshold. */
  falseFill: number | null;
  /** Ids of the no-need conversations that were answered with products. */
  falseFills: string[];
  /** How many of the set's searches (at the default threshold) each reader read. */
  readers: Record<string, number>;
}

/**
 * Scores a conversation set: runs it at the default threshold and with the threshold off, writes
 * the run files and a per-conversation details file into `out`, and returns the figures.
 */
export async function evaluateConversations(
  core: Core,
  principal: Principal,
  set: ConversationSet,
  mode: ConversationMode,
  paths: { evalDir: string; out: string; prefix: string },
): Promise<ConversationFigures> {
  const shipped = await answerConversations(core, principal, set, { mode });
  const off = await answerConversations(core, principal, set, { mode, minRelevance: 0 });
  const shoppingIds = set.conversations.filter((c) => set.judged.has(c.id)).map((c) => c.id);
  const noNeedIds = set.conversations.filter((c) => !set.judged.has(c.id)).map((c) => c.id);
  const stem = join(paths.out, `${paths.prefix}.${set.name.replace(/\s+/g, '-')}.${mode}`);
  let ndcgShipped: RunMetrics | null = null;
  let ndcgOff: RunMetrics | null = null;
  if (shoppingIds.length > 0) {
    const qrels = `${stem}.qrels.tsv`;
    const lines = ['query_id\tproduct_id\tgrade'];
    for (const id of shoppingIds) for (const [p, g] of set.judged.get(id)!) lines.push(`${id}\t${p}\t${g}`);
    writeFileSync(qrels, `${lines.join('\n')}\n`);
    const run = (answers: ConversationAnswer[], file: string) => {
      const rows = answers.filter((a) => set.judged.has(a.id)).flatMap((a) => a.products.map((p, i) => `${a.id}\t${p}\t${i + 1}`));
      writeFileSync(file, `${rows.join('\n')}\n`);
      return scoreRun(paths.evalDir, qrels, file);
    };
    ndcgShipped = run(shipped, `${stem}.shipped.run.tsv`);
    ndcgOff = run(off, `${stem}.threshold-off.run.tsv`);
  }
  const byId = new Map(off.map((a) => [a.id, a]));
  writeFileSync(
    `${stem}.details.jsonl`,
    `${shipped
      .map((a) =>
        JSON.stringify({
          query_id: a.id,
          shopping: set.judged.has(a.id),
          interpreted_query: a.interpreted,
          no_fill_reason: a.noFillReason,
          reader: a.reader,
          shipped: a.products.map((p, i) => ({ id: p, score: a.scores[i], grade: set.judged.get(a.id)?.get(p) ?? null, title: a.titles[i] })),
          threshold_off_top3: (byId.get(a.id)?.products ?? [])
            .slice(0, 3)
            .map((p, i) => ({ id: p, score: byId.get(a.id)!.scores[i], grade: set.judged.get(a.id)?.get(p) ?? null, title: byId.get(a.id)!.titles[i] })),
        }),
      )
      .join('\n')}\n`,
  );
  const answered = new Map(shipped.map((a) => [a.id, a.products.length > 0]));
  const falseFills = noNeedIds.filter((id) => answered.get(id));
  return {
    set: set.name,
    mode,
    shopping: shoppingIds.length,
    noNeed: noNeedIds.length,
    ndcgShipped: ndcgShipped?.ndcg ?? null,
    ndcgThresholdOff: ndcgOff?.ndcg ?? null,
    noFill: shoppingIds.length > 0 ? shoppingIds.filter((id) => !answered.get(id)).length / shoppingIds.length : null,
    falseFill: noNeedIds.length > 0 ? falseFills.length / noNeedIds.length : null,
    falseFills,
    readers: countBy(shipped.map((a) => a.reader)),
  };
}

/** How many times each value occurs. */
function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
