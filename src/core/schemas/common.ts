import { z } from 'zod';
import { type ErrorCode, errorRegistry } from '../errors.js';

export const Timestamp = z.iso.datetime({ offset: true }).describe('ISO 8601 timestamp, answered in UTC with milliseconds');

/** A timestamp a caller sends: ISO 8601 with an offset, between 1970 and 9999 in UTC (what PostgreSQL stores). */
export const InputTimestamp = z.iso
  .datetime({ offset: true })
  .refine((v) => {
    const t = Date.parse(v);
    return t >= 0 && t < Date.UTC(9999, 11, 31);
  }, 'must be between 1970 and 9999')
  .describe('ISO 8601 timestamp with offset, e.g. 2026-12-31T00:00:00Z');

export const ProblemSchema = z
  .object({
    type: z.string().describe('URI reference to the error documentation: /docs/errors#<code>'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(errorRegistry) as [ErrorCode, ...ErrorCode[]]).describe('Stable machine-readable error code'),
    request_id: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .loose()
  .describe('RFC 9457 problem details');

z.globalRegistry.add(ProblemSchema, { id: 'Problem' });

/** Opaque-cursor page query shared by every list endpoint. */
export const PageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('Items per page, 1 to 100'),
    cursor: z.string().min(1).max(200).optional().describe('`next_cursor` from the previous page'),
  })
  .strict();

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null on the last page'),
    has_more: z.boolean(),
  });
