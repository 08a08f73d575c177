import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  UcpGetProductRequestSchema,
  UcpGetProductResponseSchema,
  UcpLookupRequestSchema,
  UcpLookupResponseSchema,
  UcpMetaSchema,
  UcpSearchRequestSchema,
  UcpSearchResponseSchema,
} from '../../core/schemas/ucp.js';
import { registerAisleTool, type ToolContext } from '../tool.js';

/**
 * UCP's MCP binding: `arguments` is `{meta, catalog}`, where meta names the calling platform's
 * profile. The two are all UCP's binding defines; the UCP request inside `catalog` stays open.
 */
const ucpArguments = <C extends z.ZodObject>(catalog: C) =>
  z
    .object({
      meta: UcpMetaSchema.describe('UCP request metadata: {"ucp-agent": {"profile": "<your platform\'s UCP profile URL>"}}'),
      catalog,
    })
    .strict();

/** UCP asks for the answer as structured content and, for clients that read text, as JSON text. */
const asJson = <T>(structured: T) => ({ structured, text: JSON.stringify(structured) });

/**
 * UCP's catalog tools (docs/commerce.md): search_catalog, lookup_catalog and get_product, with
 * the keys, scope (`search`) and rate limit of search_products. Business outcomes (no fill, an
 * unknown id, a filter not applied) are UCP `messages` in a successful result; a caller's mistake
 * is a `validation_failed` problem like every other tool's.
 */
export function registerUcpCatalogTools(server: McpServer, ctx: ToolContext): void {
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  registerAisleTool(server, ctx, {
    name: 'search_catalog',
    title: 'Search the catalog (UCP)',
    description:
      'UCP catalog search (dev.ucp.shopping.catalog.search): products that fit `catalog.query`, as UCP products with prices in minor units. ' +
      'Show the disclosure message (presentation "disclosure") next to the product its path names. Each product carries its click link ' +
      'and affiliate attribution under metadata. Paginate with pagination.cursor. Records the products shown, like search_products.',
    input: ucpArguments(UcpSearchRequestSchema),
    output: UcpSearchResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ meta, catalog }) => asJson(await ctx.api.ucpSearch(catalog, meta['ucp-agent'].profile)),
  });
  registerAisleTool(server, ctx, {
    name: 'lookup_catalog',
    title: 'Look up products (UCP)',
    description: 'UCP catalog lookup (dev.ucp.shopping.catalog.lookup): products by id (`catalog.ids`, 1 to 50). Unknown ids come back as not_found messages.',
    input: ucpArguments(UcpLookupRequestSchema),
    output: UcpLookupResponseSchema,
    annotations: readOnly,
    run: async ({ meta, catalog }) => asJson(await ctx.api.ucpLookup(catalog, meta['ucp-agent'].profile)),
  });
  registerAisleTool(server, ctx, {
    name: 'get_product',
    title: 'Get a product (UCP)',
    description:
      'UCP get_product (dev.ucp.shopping.catalog.lookup): one product by `catalog.id`. Not found is a result with ucp.status "error" and a not_found message.',
    input: ucpArguments(UcpGetProductRequestSchema),
    output: UcpGetProductResponseSchema,
    annotations: readOnly,
    run: async ({ meta, catalog }) => asJson(await ctx.api.ucpGetProduct(catalog, meta['ucp-agent'].profile)),
  });
}
