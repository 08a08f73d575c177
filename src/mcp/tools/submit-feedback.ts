import type { McpServer } from '@modelcontextprotocol/server';
import { FeedbackRequestSchema, FeedbackSchema } from '../../core/schemas/feedback.js';
import { registerAisleTool, type ToolContext } from '../tool.js';

/** submit_feedback: POST /v1/feedback as a tool. */
export function registerSubmitFeedbackTool(server: McpServer, ctx: ToolContext): void {
  registerAisleTool(server, ctx, {
    name: 'submit_feedback',
    title: 'Submit relevance feedback',
    description:
      "Tell Aisle whether a recommended product matched the user's intent, using the request_id of the search_products answer and the product_id of one of its results. " +
      'Call it when the user says a suggestion is wrong or not what they wanted (relevant: false), or confirms it fits (relevant: true). ' +
      'Products marked not relevant rank lower for similar requests. Keep personal data out of reason. Returns the stored feedback.',
    input: FeedbackRequestSchema,
    output: FeedbackSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (feedback) => {
      const stored = await ctx.api.submitFeedback(feedback);
      return {
        structured: stored,
        text: `Feedback ${stored.feedback_id} recorded: product ${stored.product_id} ${stored.relevant ? 'relevant' : 'not relevant'}.`,
      };
    },
  });
}
