/**
 * bench:worst's search requests, the ones its targets care most about: POST /v1/search, the batch,
 * the console's playground and MCP search_products, each at the largest body its limit takes.
 */
import { mcpTool, type Req, send, withKey } from '../client.js';
import { consoleHeaders, type Kind, MAX_SEARCH_RATIO, type Setup, times, v } from '../kinds.js';
import { fewWords, longId, words } from '../texts.js';

/** The search request at its largest (made-up words: texts.ts); `shortQuery` makes the conversation count. */
function worstSearch(shape: {
  shortQuery: boolean;
  turns: number;
  stream?: boolean;
  filters?: 'costliest' | 'longest';
  exclude?: boolean;
}): Record<string, unknown> {
  // The costliest filters: a price range every product passes and 100 one-letter keywords (the
  // most 200 characters hold; each a substring test every product passes, so none ends early).
  const keywords = times(100, (i) => 'abcdefghijklmnopqrstuvwxyz'[i % 26]).join(' ');
  const filters =
    shape.filters === 'longest'
      ? { min_price: 0, max_price: 1e9, merchant: words(200), brand: words(200), category: words(200), keyword_filter: keywords }
      : { min_price: 0, max_price: 1e9, keyword_filter: keywords };
  return {
    query: shape.shortQuery ? fewWords(6) : words(2000),
    limit: 10,
    ...(shape.stream !== undefined ? { stream: shape.stream } : {}),
    filters,
    min_relevance_score: 0,
    conversation_context: times(shape.turns, () => ({ role: 'user', content: words(4000) })),
    ...(shape.exclude === false ? {} : { exclude_product_ids: times(200, () => longId(200)) }),
  };
}

/** As many conversation turns as keep `make(turns)` within `limit` bytes. */
function fitTurns(limit: number, make: (turns: number) => unknown): number {
  for (let turns = 50; turns >= 0; turns--) if (Buffer.byteLength(JSON.stringify(make(turns))) <= limit) return turns;
  throw new Error(`no request of this shape fits in ${limit} bytes`);
}

function checkedSize(req: Req, limit: number): Req {
  const bytes = Buffer.byteLength(req.body ?? '');
  if (bytes > limit) throw new Error(`${req.method} ${req.path}: a ${bytes}-byte body is over the ${limit}-byte limit`);
  return req;
}

/**
 * The search kinds. Building them draws texts (the conversation turns that fit a body limit are
 * counted on real requests), so they are built before any request is: the same texts every run.
 */
export function searchKinds(s: Setup): { search: Kind; batch: Kind; playground: Kind; mcpSearch: Kind } {
  const A = withKey(s.keyA);
  const searchLimit = s.bodyLimit('POST /v1/search');
  const batchLimit = s.bodyLimit('POST /v1/search/batch');
  const mcpLimit = s.bodyLimit('POST /mcp');
  const consoleLimit = s.bodyLimit('POST /console/playground');
  const plain = () => ({ query: s.queries.take(), limit: 10 });
  const worstShapes = [
    { label: 'worst: 2,000-char query, 50 turns × 4,000, 200 ids × 200, the costliest filters (100 keywords)', shape: { shortQuery: false, turns: 50 } },
    { label: 'worst: the same, stream: true', shape: { shortQuery: false, turns: 50, stream: true } },
    { label: 'worst: 6-word query (so the last 2 turns are matched), the rest the same', shape: { shortQuery: true, turns: 50 } },
    {
      label: 'worst: the same with every text filter at 200 characters (matching nothing)',
      shape: { shortQuery: true, turns: 50, filters: 'longest' as const },
    },
  ];

  const search: Kind = {
    route: 'POST /v1/search',
    reps: 8,
    maxRatio: MAX_SEARCH_RATIO,
    typical: v('typical: a dev query, limit 10', (n) => times(n, () => send('POST', '/v1/search', plain(), A))),
    worst: [
      ...worstShapes.map(({ label, shape }) =>
        v(label, (n) => times(n, () => checkedSize(send('POST', '/v1/search', worstSearch(shape), A), searchLimit)), { reps: 3 }),
      ),
      v('price only: "under $50"', (n) => times(n, () => send('POST', '/v1/search', { query: 'under $50', limit: 10 }, A)), { report: true }),
    ],
  };

  const batchQuery = (turns: number) => worstSearch({ shortQuery: true, turns });
  const batchTurns = fitTurns(batchLimit, (t) => ({ queries: times(10, () => batchQuery(t)) }));
  const batch: Kind = {
    route: 'POST /v1/search/batch',
    reps: 2,
    maxRatio: MAX_SEARCH_RATIO,
    perSearch: 10,
    typical: v('typical: 10 dev queries, limit 10', (n) => times(n, () => send('POST', '/v1/search/batch', { queries: times(10, plain) }, A))),
    worst: [
      v(
        `worst: 10 × (6-word query, ${batchTurns} turns × 4,000, 200 ids × 200, 100 keywords): 1 MiB`,
        (n) => times(n, () => checkedSize(send('POST', '/v1/search/batch', { queries: times(10, () => batchQuery(batchTurns)) }, A), batchLimit)),
        { reps: 1 },
      ),
    ],
  };

  const playground: Kind = {
    route: 'POST /console/playground',
    reps: 6,
    maxRatio: MAX_SEARCH_RATIO,
    typical: v('typical: a dev query, limit 10', async (n) => {
      const h = await consoleHeaders(s);
      return times(n, () => send('POST', '/console/playground', plain(), h));
    }),
    worst: [
      v(
        'worst: 6-word query, 50 turns × 4,000, 100 keywords',
        async (n) => {
          const h = await consoleHeaders(s);
          return times(n, () =>
            checkedSize(send('POST', '/console/playground', worstSearch({ shortQuery: true, turns: 50, exclude: false }), h), consoleLimit),
          );
        },
        { reps: 3 },
      ),
    ],
  };

  // The JSON-RPC envelope takes a few bytes of the body limit: one turn fewer if they do not fit.
  const mcpArgs = (turns: number) => ({ ...worstSearch({ shortQuery: true, turns }), detail: 'full' });
  const mcpTurns = fitTurns(mcpLimit, (t) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_products', arguments: mcpArgs(t) } }));

  const mcpSearch: Kind = {
    route: 'POST /mcp',
    tool: 'search_products',
    reps: 6,
    maxRatio: MAX_SEARCH_RATIO,
    typical: v('typical: a dev query, limit 10', (n) => times(n, () => mcpTool(s.keyA, 'search_products', plain()))),
    worst: [
      v(
        `worst: as REST's 6-word one, ${mcpTurns} turns, detail full`,
        (n) => times(n, () => checkedSize(mcpTool(s.keyA, 'search_products', mcpArgs(mcpTurns)), mcpLimit)),
        { reps: 3 },
      ),
    ],
  };
  return { search, batch, playground, mcpSearch };
}
