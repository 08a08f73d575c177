import { z } from 'zod';
import { idInBody } from './clicks.js';
import { Timestamp } from './common.js';

export const FeedbackRequestSchema = z
  .object({
    request_id: idInBody('request').describe('The request_id of the search response'),
    product_id: z.string().min(1).max(200).describe("The product_id of one of that response's results (UUID or `prd_` form)"),
    relevant: z.boolean().describe("Whether the recommendation matched the user's intent"),
    reason: z.string().max(1000).optional().describe('Why; personal data in it is redacted or refused per the account policy'),
    user_clicked: z.boolean().optional().describe('Whether the user clicked the product'),
  })
  .strict();
export type FeedbackRequest = z.infer<typeof FeedbackRequestSchema>;

export const FeedbackSchema = z.object({
  feedback_id: z.uuid(),
  request_id: z.uuid(),
  product_id: z.uuid(),
  relevant: z.boolean(),
  created_at: Timestamp,
  livemode: z.boolean().describe('False when a test key (aisle_test_) made it: test data, never counted in live figures'),
});
export type Feedback = z.infer<typeof FeedbackSchema>;
