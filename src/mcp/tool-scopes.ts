import type { Scope } from '../core/keys/scopes.js';

/**
 * The scope each MCP tool needs (the tool table in docs/mcp.md). The in-process API checks it on
 * every call, for keys and tokens alike; over HTTP this table also lets an OAuth access token
 * that lacks it be refused before the call runs, with the 403 scope challenge its client steps
 * up from (docs/oauth.md). test/http/oauth.test.ts checks it names every listed tool.
 */
export const TOOL_SCOPES: Readonly<Record<string, Scope>> = {
  search_products: 'search',
  record_click: 'events:write',
  record_display: 'events:write',
  submit_feedback: 'events:write',
  get_analytics: 'analytics:read',
  search_catalog: 'search',
  lookup_catalog: 'search',
  get_product: 'search',
};

/** The scope a JSON-RPC message needs before it runs: that of the tool a `tools/call` names, else none. */
export function scopeOfMessage(message: unknown): Scope | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } | null };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const { name } = params;
  return typeof name === 'string' && Object.hasOwn(TOOL_SCOPES, name) ? TOOL_SCOPES[name] : undefined;
}
