import { z } from 'zod';
import { Timestamp } from './common.js';

/** Named sets of taxonomy categories a policy may exclude by name (docs/policy.md lists their ids). */
export const POLICY_PRESETS = ['alcohol', 'tobacco', 'weapons', 'adult', 'gambling', 'drugs_and_medicine', 'financial'] as const;
export type PolicyPreset = (typeof POLICY_PRESETS)[number];

const CategoryEntry = z
  .union([
    z.number().int().positive(),
    z
      .string()
      .regex(/^\d{1,9}$/)
      .transform(Number),
    z.enum(POLICY_PRESETS),
  ])
  .describe('A Google product taxonomy id (its whole subtree), or a preset name');
const Name = z.string().trim().min(1).max(200);

/**
 * The fields of a publisher policy (docs/policy.md). In an account's policy an absent field is
 * "no restriction"; in a key's, "as the account says", and null there lifts the account's limit.
 */
export const PolicyFieldsSchema = z
  .object({
    excluded_categories: z.array(CategoryEntry).max(200).optional().describe('Taxonomy ids (with everything under them) and presets to show no products from'),
    excluded_brands: z.array(Name).max(500).optional().describe('Brands to show no products of, case-insensitive'),
    excluded_merchants: z.array(Name).max(500).optional().describe('Merchants to show no products of, case-insensitive'),
    min_turns: z.number().int().min(1).max(10).nullable().optional().describe("No products before the conversation's Nth user message (1 to 10)"),
    max_product_answers_per_session: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .nullable()
      .optional()
      .describe('At most this many answers with products per session_id; 0 shows none'),
    min_relevance_score: z.number().min(0).max(1).nullable().optional().describe("A floor under every search's min_relevance_score"),
  })
  .strict();
export type PolicyFields = z.infer<typeof PolicyFieldsSchema>;

const EffectiveFields = z.object({
  excluded_categories: z.array(z.union([z.number().int(), z.enum(POLICY_PRESETS)])),
  excluded_brands: z.array(z.string()),
  excluded_merchants: z.array(z.string()),
  min_turns: z.number().int().nullable(),
  max_product_answers_per_session: z.number().int().nullable(),
  min_relevance_score: z.number().nullable(),
  excluded_category_paths: z.array(z.string()).describe('The taxonomy subtrees the excluded categories stand for, presets expanded: what search leaves out'),
});

export const PolicySchema = EffectiveFields.extend({
  object: z.literal('policy'),
  updated_at: Timestamp.nullable().describe('Null until a policy is first set'),
});
z.globalRegistry.add(PolicySchema, { id: 'Policy' });
export type PolicyView = z.infer<typeof PolicySchema>;

export const KeyPolicySchema = z.object({
  object: z.literal('key_policy'),
  key_id: z.uuid(),
  overrides: z
    .object({
      excluded_categories: z.array(z.union([z.number().int(), z.enum(POLICY_PRESETS)])).optional(),
      excluded_brands: z.array(z.string()).optional(),
      excluded_merchants: z.array(z.string()).optional(),
      min_turns: z.number().int().nullable().optional(),
      max_product_answers_per_session: z.number().int().nullable().optional(),
      min_relevance_score: z.number().nullable().optional(),
    })
    .describe("The fields this key sets; the others are the account's"),
  effective: EffectiveFields.describe("What searches with this key (and the OAuth apps it approved) get: the account's policy with the key's fields over it"),
  updated_at: Timestamp.nullable(),
});
z.globalRegistry.add(KeyPolicySchema, { id: 'KeyPolicy' });
export type KeyPolicyView = z.infer<typeof KeyPolicySchema>;
