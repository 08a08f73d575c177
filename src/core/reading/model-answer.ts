/** What the model reader asks a language model for (model-reader.ts, src/reader/openai-chat.ts). */
import { z } from 'zod';

/**
 * The answer a language model gives for a conversation, as JSON that fits this schema (the chat
 * endpoint is asked for exactly this schema; an answer that does not fit is not used).
 */
export const ModelAnswerSchema = z
  .object({
    shopping_need: z.boolean().describe('Whether the person wants a product now (something to buy), said outright or implied'),
    sensitive: z
      .boolean()
      .describe(
        'Whether the conversation touches grief, self-harm, a medical emergency, politics, a child at risk or violence, where no product should be shown',
      ),
    product_query: z
      .string()
      .max(200)
      .describe('The product to search for as a short catalog query in English (for example "heated mattress pad"); empty when there is no shopping need'),
    min_price: z.number().nonnegative().nullable().describe('The lowest price the person accepts, when they said one'),
    max_price: z.number().nonnegative().nullable().describe('The highest price the person accepts, when they said one'),
    brand: z.string().max(100).nullable().describe('A brand the person insists on, when they did'),
  })
  .strict();
export type ModelAnswer = z.infer<typeof ModelAnswerSchema>;
