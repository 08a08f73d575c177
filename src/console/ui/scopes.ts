import type { Scope } from '../../core/keys/scopes.js';

/** What each scope lets its holder do, in the words the consent view and Connected apps use. */
export const SCOPE_TEXT: Record<Scope, string> = {
  search: 'Search products and see recommendations',
  'events:write': 'Report clicks, displayed cards and relevance feedback',
  'conversions:write': 'Record conversions (sales)',
  'analytics:read': 'Read usage, analytics and performance figures',
  'keys:manage': 'Manage API keys',
  'webhooks:manage': 'Manage webhooks',
  'catalog:write': 'Publish products to the catalog (product feeds)',
};
