/** Every scope a key can hold; a new account's first key holds them all. */
export const SCOPES = ['search', 'events:write', 'conversions:write', 'analytics:read', 'keys:manage', 'webhooks:manage', 'catalog:write'] as const;

export type Scope = (typeof SCOPES)[number];

export const hasScope = (held: readonly string[], scope: Scope): boolean => held.includes(scope);
