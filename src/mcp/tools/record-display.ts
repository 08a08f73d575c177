import type { McpServer } from '@modelcontextprotocol/server';
import { DisplayReceiptRequestSchema, DisplayReceiptSchema } from '../../core/schemas/clicks.js';
import { registerAisleTool, type ToolContext } from '../tool.js';

/**
 * record_display: POST /v1/displays as an app-only tool. Aisle's product-card view calls it once a
 * card has been at least half visible for a second; `visibility: ["app"]` keeps it from the model
 * (a model cannot see a screen, so it must never vouch for one), while tools/list still lists it.
 */
export function registerRecordDisplayTool(server: McpServer, ctx: ToolContext): void {
  registerAisleTool(server, ctx, {
    name: 'record_display',
    title: 'Record that product cards were displayed',
    description:
      "Called by Aisle's product-card view, not by the model: reports that the cards of these search results, each with its affiliate disclosure, " +
      "were on the person's screen (at least half visible for a second). Takes 1 to 10 impression_ids of this key's own results. " +
      'The first receipt for an impression sets its displayed_at; repeats change nothing and say first_receipt: false. ' +
      'An id that is unknown or of another account fails the whole call with not_found, and nothing is recorded.',
    input: DisplayReceiptRequestSchema,
    output: DisplayReceiptSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    ui: { visibility: ['app'] },
    run: async (request) => {
      const receipt = await ctx.api.recordDisplays(request);
      const fresh = receipt.displays.filter((d) => d.first_receipt).length;
      return { structured: receipt, text: `Display recorded for ${fresh} of ${receipt.displays.length} impression(s); the others had been recorded before.` };
    },
  });
}
