export const SCOPES = ['search', 'events:write', 'conversions:write', 'analytics:read', 'keys:manage', 'webhooks:manage', 'catalog:write'] as const;

export type Scope = (typeof SCOPES)[number];

export const ALL_SCOPES: readonly Scope[] = SCOPES;

export const hasScope = (held: readonly string[], scope: Scope): boolean => held.includes(scope);
