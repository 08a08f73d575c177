/** bench:worst's requests for the MCP tools other than search (search.ts): one JSON-RPC call per POST /mcp. */
import { prefixedId } from '../../../../src/core/ids.js';
import { mcpCall, mcpTool } from '../client.js';
import { type Kind, lastDays, MAX_RATIO, type Setup, times, v } from '../kinds.js';
import { words } from '../texts.js';

export function mcpKinds(s: Setup): Kind[] {
  return [
    {
      route: 'POST /mcp',
      tool: 'record_click',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', async (n) => (await s.shown(n)).map((r) => mcpTool(s.keyA, 'record_click', { impression_id: r.impressionId }))),
      worst: [
        v('worst: imp_ form', async (n) =>
          (await s.shown(n)).map((r) => mcpTool(s.keyA, 'record_click', { impression_id: prefixedId('impression', r.impressionId) })),
        ),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'submit_feedback',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: request and product', async (n) =>
        (await s.shown(n)).map((r) => mcpTool(s.keyA, 'submit_feedback', { request_id: r.requestId, product_id: r.productId, relevant: false })),
      ),
      worst: [
        v('worst: prefixed ids, 1,000-char reason', async (n) =>
          (await s.shown(n)).map((r) =>
            mcpTool(s.keyA, 'submit_feedback', {
              request_id: prefixedId('request', r.requestId),
              product_id: prefixedId('product', r.productId),
              relevant: false,
              reason: words(1000),
              user_clicked: true,
            }),
          ),
        ),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'get_analytics',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: summary, 30 days', (n) => times(n, () => mcpTool(s.keyA, 'get_analytics', {}))),
      worst: [
        v('worst: summary, 366 days', (n) => times(n, () => mcpTool(s.keyA, 'get_analytics', lastDays(366)))),
        v('worst: ctr, 31 days hourly', (n) => times(n, () => mcpTool(s.keyA, 'get_analytics', { metric: 'ctr', ...lastDays(31), granularity: 'hour' }))),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'record_display',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 1 impression', async (n) => (await s.shown(n)).map((r) => mcpTool(s.keyA, 'record_display', { impression_ids: [r.impressionId] }))),
      worst: [
        v('worst: 10 impressions, imp_ form', async (n) => {
          const shown = await s.shown(10 * n);
          return times(n, (i) =>
            mcpTool(s.keyA, 'record_display', { impression_ids: shown.slice(10 * i, 10 * i + 10).map((r) => prefixedId('impression', r.impressionId)) }),
          );
        }),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'tools/list',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form (the MCP method, not a tool)', (n) => times(n, () => mcpCall(s.keyA, 'tools/list', {}))),
      worst: [],
    },
  ];
}
