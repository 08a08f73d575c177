import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ClickSchema, idInBody } from '../../core/schemas/clicks.js';
import { registerAisleTool, type ToolContext } from '../tool.js';

const RecordClickInputSchema = z
  .object({ impression_id: idInBody('impression').describe('impression_id of the search result the user chose (a UUID or its imp_ form)') })
  .strict();

/** record_click: POST /v1/clicks/{impression_id} as a tool; idempotent per impression. */
export function registerRecordClickTool(server: McpServer, ctx: ToolContext): void {
  registerAisleTool(server, ctx, {
    name: 'record_click',
    title: 'Record a click',
    description:
      'Report that the user chose (clicked, opened or asked to buy) a product from search_products, by its impression_id. ' +
      'Merchants pay for attributed clicks, so call it whenever the user picks a product and you did not hand them the click link ' +
      '(opening the link records the click itself). Returns the click with the merchant URL (destination_url). ' +
      'Safe to repeat: a second report returns the same click with duplicate: true and is not counted again.',
    input: RecordClickInputSchema,
    output: ClickSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ impression_id }) => {
      const click = await ctx.api.recordClick(impression_id);
      const text = click.duplicate
        ? `Already recorded: click ${click.click_id} on impression ${click.impression_id} (not counted again).`
        : `Click ${click.click_id} recorded for product ${click.product_id}.`;
      return { structured: click, text: `${text}${click.destination_url ? ` Merchant page: ${click.destination_url}` : ''}` };
    },
  });
}
