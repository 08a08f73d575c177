/**
 * Every request kind bench:worst runs, in the order it runs them: for each route the app
 * registers and each tool POST /mcp lists, a typical request and the largest valid ones (the
 * limits are the zod schemas' in src/core/schemas). A route or tool missing here prints a
 * "not covered" row.
 */
import type { Kind, Setup } from '../kinds.js';
import { analyticsKinds } from './analytics.js';
import { consoleKinds } from './console.js';
import { docsKinds } from './docs.js';
import { eventKinds } from './events.js';
import { keyKinds } from './keys.js';
import { mcpKinds } from './mcp.js';
import { searchKinds } from './search.js';
import { webhookKinds } from './webhooks.js';

/** Where a route without a request kind is told to look. */
export const CATALOGUE = 'tools/bench/worst/requests/';

/** The request kinds for `s`; `swaggerStatic` and `assets` name the files the static routes serve. */
export function requestKinds(s: Setup, swaggerStatic: { small: string; large: string }, assets: { css: string; js: string }): Kind[] {
  // First: building the search kinds draws texts, the rest draw only when their requests are built.
  const { search, batch, playground, mcpSearch } = searchKinds(s);
  return [
    ...docsKinds(swaggerStatic, assets),
    ...keyKinds(s),
    search,
    batch,
    ...eventKinds(s),
    ...webhookKinds(s),
    ...analyticsKinds(s),
    ...consoleKinds(s),
    playground,
    mcpSearch,
    ...mcpKinds(s),
  ];
}
