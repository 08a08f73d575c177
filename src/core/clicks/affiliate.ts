import { z } from 'zod';

const Params = z.record(z.string().min(1).max(100), z.string().max(500));

/**
 * Which query parameters a click's redirect appends, per merchant or per affiliate network
 * (AISLE_AFFILIATE_CONFIG names the JSON file; docs/clicks.md). A merchant entry is matched
 * by merchant name or by the destination's host name, case-insensitively; its parameters go on
 * top of its network's, which go on top of `default`'s. Values may use `{click_id}`,
 * `{impression_id}`, `{product_id}` and `{request_id}` (prefixed ids), so a network that echoes
 * a sub-id back in its conversion postback hands us the click id for POST /conversions.
 */
export const AffiliateConfigSchema = z
  .object({
    default: z.object({ params: Params }).strict().optional(),
    networks: z.record(z.string(), z.object({ params: Params }).strict()).default({}),
    merchants: z
      .record(z.string(), z.object({ network: z.string().optional(), hosts: z.array(z.string()).optional(), params: Params.default({}) }).strict())
      .default({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    for (const [name, m] of Object.entries(c.merchants)) {
      if (m.network !== undefined && !(m.network in c.networks)) {
        ctx.addIssue({ code: 'custom', path: ['merchants', name, 'network'], message: `unknown network "${m.network}"` });
      }
    }
  });
export type AffiliateConfig = z.infer<typeof AffiliateConfigSchema>;

export const EMPTY_AFFILIATE_CONFIG: AffiliateConfig = { networks: {}, merchants: {} };

export interface ClickIds {
  click_id: string;
  impression_id: string;
  product_id: string;
  request_id: string;
}

/** The merchant URL with its affiliate parameters; a URL that does not parse is returned as is. */
export function withAffiliateParams(config: AffiliateConfig, url: string, merchant: string | null, ids: ClickIds): string {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return url;
  }
  const host = target.hostname.toLowerCase();
  const wanted = (merchant ?? '').toLowerCase();
  const entry = Object.entries(config.merchants).find(
    ([name, m]) => (wanted !== '' && name.toLowerCase() === wanted) || (m.hosts ?? []).some((h) => h.toLowerCase() === host),
  )?.[1];
  const params = {
    ...(config.default?.params ?? {}),
    ...(entry?.network ? config.networks[entry.network]?.params : {}),
    ...(entry?.params ?? {}),
  };
  for (const [name, template] of Object.entries(params)) {
    target.searchParams.set(
      name,
      template.replace(/\{(click_id|impression_id|product_id|request_id)\}/g, (_m, k: keyof ClickIds) => ids[k]),
    );
  }
  return target.toString();
}
