import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import { AppError, type FieldError } from '../errors.js';
import { parseId } from '../ids.js';
import type { KeyRepository } from '../keys/ports.js';
import { type Taxonomy, topmost } from '../knowledge/taxonomy.js';
import type { KeyPolicyView, PolicyFields, PolicyPreset, PolicyView } from '../schemas/policy.js';
import type { Principal } from '../shared-ports.js';
import type { PolicyStore, StoredPolicy } from './ports.js';

/**
 * The taxonomy ids each preset stands for, each with its subtree (docs/policy.md lists them with
 * their paths). Chosen from the Google product taxonomy's own branches for the kinds of product
 * ad networks keep away from conversations.
 */
export const PRESET_CATEGORIES: Readonly<Record<PolicyPreset, readonly number[]>> = {
  alcohol: [499676, 3577],
  tobacco: [435, 600],
  weapons: [780, 220, 1695, 5543, 3093],
  adult: [773],
  gambling: [5403, 7383],
  drugs_and_medicine: [518, 5086, 525, 2552],
  financial: [1813, 53, 217],
};

/** How long a process serves a policy it read before reading it again: a change reaches every process within this. */
export const POLICY_CACHE_MS = 5_000;

/** A policy as search applies it: categories as taxonomy paths (the subtrees to leave out). */
export interface ResolvedPolicy {
  excludeSubtrees: (readonly string[])[];
  excludeBrands: string[];
  excludeMerchants: string[];
  minTurns: number | null;
  maxProductAnswers: number | null;
  minRelevance: number | null;
}

/** The account's fields with the key's over them; an account field never set is no restriction. */
type Effective = Required<{ [K in keyof PolicyFields]: Exclude<PolicyFields[K], undefined> }>;

const NONE: Effective = {
  excluded_categories: [],
  excluded_brands: [],
  excluded_merchants: [],
  min_turns: null,
  max_product_answers_per_session: null,
  min_relevance_score: null,
};

export interface PolicyServiceDeps {
  store: PolicyStore;
  keys: Pick<KeyRepository, 'findById'>;
  clock: Clock;
  /** Resolves excluded categories; without it a policy that excludes any is refused. */
  taxonomy?: Taxonomy;
  cacheMs?: number;
}

/**
 * Publisher policy per account, overridable per key (docs/policy.md): managed at /v1/policy and
 * /v1/keys/{key_id}/policy, and read by every search through a short cache, so a change made on
 * one machine reaches every API process within POLICY_CACHE_MS.
 */
export class PolicyService {
  private readonly cache: LRUCache<string, { at: number; value: Promise<ResolvedPolicy | null> }>;

  constructor(private readonly deps: PolicyServiceDeps) {
    this.cache = new LRUCache({ max: 10_000 });
  }

  async getAccount(principal: Principal): Promise<PolicyView> {
    const { account } = await this.deps.store.read(principal.accountId, null);
    return this.view(account);
  }

  async putAccount(principal: Principal, fields: PolicyFields): Promise<PolicyView> {
    this.check(fields);
    const now = this.deps.clock.now();
    await this.deps.store.write(principal.accountId, null, tidy(fields), now);
    this.forget(principal.accountId);
    return this.getAccount(principal);
  }

  async getKey(principal: Principal, rawKeyId: string): Promise<KeyPolicyView> {
    const keyId = await this.keyOf(principal, rawKeyId);
    const { account, key } = await this.deps.store.read(principal.accountId, keyId);
    return {
      object: 'key_policy',
      key_id: keyId,
      overrides: key?.fields ?? {},
      effective: this.effectiveView(merge(account, key)),
      updated_at: key?.updatedAt.toISOString() ?? null,
    };
  }

  async putKey(principal: Principal, rawKeyId: string, fields: PolicyFields): Promise<KeyPolicyView> {
    const keyId = await this.keyOf(principal, rawKeyId);
    this.check(fields);
    await this.deps.store.write(principal.accountId, keyId, tidy(fields), this.deps.clock.now());
    this.forget(principal.accountId);
    return this.getKey(principal, keyId);
  }

  /** The policy a search by this principal gets (null: none set), read at most every POLICY_CACHE_MS per key. */
  effective(principal: Pick<Principal, 'accountId' | 'keyId'>): Promise<ResolvedPolicy | null> {
    const cacheKey = `${principal.accountId}:${principal.keyId}`;
    const now = Date.now();
    const hit = this.cache.get(cacheKey);
    if (hit && now - hit.at < (this.deps.cacheMs ?? POLICY_CACHE_MS)) return hit.value;
    const value = this.deps.store
      .read(principal.accountId, principal.keyId)
      .then(({ account, key }) => (account || key ? this.resolve(merge(account, key)) : null));
    // A failed read is not kept: the next search reads again.
    value.catch(() => this.cache.delete(cacheKey));
    this.cache.set(cacheKey, { at: now, value });
    return value;
  }

  /** This process's cached reads for the account: its own change applies at once here. */
  private forget(accountId: string): void {
    for (const key of [...this.cache.keys()]) if (key.startsWith(`${accountId}:`)) this.cache.delete(key);
  }

  private resolve(p: Effective): ResolvedPolicy | null {
    const resolved: ResolvedPolicy = {
      excludeSubtrees: this.subtrees(p.excluded_categories),
      excludeBrands: p.excluded_brands,
      excludeMerchants: p.excluded_merchants,
      minTurns: p.min_turns,
      maxProductAnswers: p.max_product_answers_per_session,
      minRelevance: p.min_relevance_score,
    };
    const empty =
      resolved.excludeSubtrees.length + resolved.excludeBrands.length + resolved.excludeMerchants.length === 0 &&
      resolved.minTurns === null &&
      resolved.maxProductAnswers === null &&
      resolved.minRelevance === null;
    return empty ? null : resolved;
  }

  /** Each excluded category's path, presets expanded, without those under another excluded one. */
  private subtrees(entries: readonly (number | PolicyPreset)[]): (readonly string[])[] {
    const taxonomy = this.deps.taxonomy;
    if (!taxonomy) return [];
    const ids = new Set(entries.flatMap((e) => (typeof e === 'number' ? [e] : PRESET_CATEGORIES[e])));
    const paths = [...ids].flatMap((id) => {
      const c = taxonomy.get(id);
      return c ? [c.path] : [];
    });
    return topmost(paths);
  }

  private check(fields: PolicyFields): void {
    const errors: FieldError[] = [];
    const taxonomy = this.deps.taxonomy;
    // An exclusion this server could not apply is refused, never stored to be silently ignored.
    if (!taxonomy && fields.excluded_categories?.length)
      throw new AppError('unavailable', 'This server has no product taxonomy loaded, so it cannot exclude categories.');
    fields.excluded_categories?.forEach((e, i) => {
      if (typeof e === 'number' && taxonomy && !taxonomy.has(e)) {
        errors.push({ path: `excluded_categories.${i}`, message: `${e} is not a Google product taxonomy id` });
      }
    });
    if (errors.length > 0) throw new AppError('validation_failed', errors[0]!.message, { errors });
  }

  private async keyOf(principal: Principal, rawKeyId: string): Promise<string> {
    const id = parseId('key', rawKeyId);
    const key = id === null ? null : await this.deps.keys.findById(principal.accountId, id);
    if (key === null) throw new AppError('not_found', `No key with id ${rawKeyId} in this account.`);
    return key.id;
  }

  private view(stored: StoredPolicy | null): PolicyView {
    return { object: 'policy', ...this.effectiveView(merge(stored, null)), updated_at: stored?.updatedAt.toISOString() ?? null };
  }

  private effectiveView(p: Effective): Omit<PolicyView, 'object' | 'updated_at'> {
    return { ...p, excluded_category_paths: this.subtrees(p.excluded_categories).map((path) => path.join(' > ')) };
  }
}

function merge(account: StoredPolicy | null, key: StoredPolicy | null): Effective {
  const out: Effective = { ...NONE };
  for (const fields of [account?.fields, key?.fields]) {
    if (!fields) continue;
    for (const [name, value] of Object.entries(fields) as [keyof Effective, never][]) if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Lists without repeats (brands and merchants compared as search compares them); ids as numbers. */
function tidy(fields: PolicyFields): PolicyFields {
  const fold = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  const unique = (list: readonly string[]) => {
    const first = new Map<string, string>();
    for (const s of list) if (!first.has(fold(s))) first.set(fold(s), s.trim());
    return [...first.values()];
  };
  return {
    ...fields,
    ...(fields.excluded_categories ? { excluded_categories: [...new Set(fields.excluded_categories)] } : {}),
    ...(fields.excluded_brands ? { excluded_brands: unique(fields.excluded_brands) } : {}),
    ...(fields.excluded_merchants ? { excluded_merchants: unique(fields.excluded_merchants) } : {}),
  };
}
