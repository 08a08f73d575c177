import { z } from 'zod';

/**
 * Catalog sources (docs/ingest.md, "Feeds pulled on a schedule"): a feed URL pulled on a schedule
 * into the catalog. One schema per operation, shared by REST and OpenAPI.
 */

export const SOURCE_FORMATS = ['jsonl', 'csv', 'gmc-tsv', 'gmc-xml'] as const;
/** Shortest schedule: affiliate networks refresh feeds every two hours at the most; 15 minutes is ample. */
const MIN_SCHEDULE_MINUTES = 15;
const MAX_SCHEDULE_MINUTES = 7 * 24 * 60;

const Mapping = z
  .record(z.string().min(1).max(50), z.union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).min(1).max(20)]))
  .refine((m) => Object.keys(m).length <= 40, 'at most 40 fields')
  .describe('CSV only: Aisle field → column header (or a list, the first non-empty wins), as `npm run ingest -- --mapping` takes');

export const CreateSourceBodySchema = z
  .object({
    url: z.url().max(2000).describe('https URL of the feed (http and private addresses only where the operator allows them)'),
    format: z.enum(SOURCE_FORMATS).optional().describe('Detected from the file when absent'),
    mapping: Mapping.optional(),
    merchant: z.string().trim().min(1).max(200).optional().describe('Merchant for rows that name none'),
    schedule: z.number().int().min(MIN_SCHEDULE_MINUTES).max(MAX_SCHEDULE_MINUTES).describe('Minutes between pulls'),
  })
  .strict();
export type CreateSourceBody = z.infer<typeof CreateSourceBodySchema>;

export const UpdateSourceBodySchema = z
  .object({
    url: CreateSourceBodySchema.shape.url.optional(),
    format: z.enum(SOURCE_FORMATS).nullable().optional(),
    mapping: Mapping.nullable().optional(),
    merchant: z.string().trim().min(1).max(200).nullable().optional(),
    schedule: CreateSourceBodySchema.shape.schedule.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');
export type UpdateSourceBody = z.infer<typeof UpdateSourceBodySchema>;

export const SourceIdParamsSchema = z.object({ id: z.string().min(1).max(100) });

const Counts = z.object({ new: z.number().int(), updated: z.number().int(), delta: z.number().int(), unchanged: z.number().int(), skipped: z.number().int() });

export const PullRecordSchema = z.object({
  id: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  status: z.enum(['ok', 'not_modified', 'failed']),
  error: z.string().optional().describe('Why a failed pull failed; the catalog kept serving what it had'),
  products: Counts,
});
export type PullRecord = z.infer<typeof PullRecordSchema>;

export const SourceRecordSchema = z.object({
  id: z.string(),
  url: z.string(),
  format: z.enum(SOURCE_FORMATS).nullable(),
  mapping: z.record(z.string(), z.union([z.string(), z.array(z.string())])).nullable(),
  merchant: z.string().nullable(),
  schedule: z.number().int(),
  next_pull_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_pull: PullRecordSchema.nullable(),
  pulls: z.array(PullRecordSchema).describe('The last 20 pulls, newest first'),
});
export type SourceRecord = z.infer<typeof SourceRecordSchema>;

export const SourceListSchema = z.object({ data: z.array(SourceRecordSchema) });
export type SourceList = z.infer<typeof SourceListSchema>;
