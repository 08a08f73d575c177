import { McpServer, type ServerCapabilities } from '@modelcontextprotocol/server';
import type { Logger } from '../core/shared-ports.js';
import type { AisleApi } from './api.js';
import { registerProductCardsView } from './app-view.js';
import { INTEGRATOR_RULES_URI, registerGuidance } from './guidance.js';
import type { ToolContext } from './tool.js';
import { registerGetAnalyticsTool } from './tools/get-analytics.js';
import { registerRecordClickTool } from './tools/record-click.js';
import { registerRecordDisplayTool } from './tools/record-display.js';
import { registerSearchProductsTool } from './tools/search-products.js';
import { registerSubmitFeedbackTool } from './tools/submit-feedback.js';
import { registerUcpCatalogTools } from './tools/ucp-catalog.js';

const MCP_SERVER_NAME = 'aisle';
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Aisle recommends products from its catalog for what the user is talking about. Use search_products when the user wants to find or buy something; ' +
  "show each result's disclosure_text and give its click_url; call record_click when the user picks a product without the link; " +
  `submit_feedback when they say a result is wrong; get_analytics reads the account's clicks, CTR and revenue. Rules: ${INTEGRATOR_RULES_URI}.`;

export interface McpServerOptions {
  logger: Logger;
  requestId(): string;
  /**
   * More on each server after Aisle's own tools, resources and prompt. Only the MCP conformance
   * run passes one, for the suite's fixtures (tools/conformance/run.ts); `npm start` and the stdio
   * server never do.
   */
  extension?: McpServerExtension;
  /** Told of each tool call when it ends (the server's metrics: docs/operations.md). */
  onToolCall?: ToolContext['onToolCall'];
}

type ServerOptions = NonNullable<ConstructorParameters<typeof McpServer>[1]>;

export interface McpServerExtension {
  /** Declared beside Aisle's own capabilities. */
  capabilities?: ServerCapabilities;
  /** The 2026-07-28 multi-round-trip state check (Aisle's own tools use no requestState). */
  requestState?: ServerOptions['requestState'];
  register(server: McpServer): void;
}

/**
 * One MCP server for one caller: every tool, the rules resource and the prompt, over `api` (the
 * in-process core bound to a principal or key, or a remote Aisle). The SDK serves it on every
 * protocol era it speaks (2026-07-28 and the 2025 revisions). Stdio builds one per connection,
 * POST /mcp one per request, so no server ever serves two callers.
 */
export function buildMcpServer(api: AisleApi, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'Aisle', version: MCP_SERVER_VERSION },
    {
      instructions: INSTRUCTIONS,
      // The lists never change while a server lives (the SDK's default says they may), so a
      // 2026-07-28 subscriptions/listen is acknowledged and closed at once instead of held open.
      capabilities: {
        ...options.extension?.capabilities,
        tools: { listChanged: false },
        resources: { ...options.extension?.capabilities?.resources, listChanged: false },
        prompts: { listChanged: false },
      },
      ...(options.extension?.requestState === undefined ? {} : { requestState: options.extension.requestState }),
    },
  );
  const ctx: ToolContext = {
    api,
    logger: options.logger,
    requestId: options.requestId,
    ...(options.onToolCall === undefined ? {} : { onToolCall: options.onToolCall }),
  };
  registerSearchProductsTool(server, ctx);
  registerRecordClickTool(server, ctx);
  registerSubmitFeedbackTool(server, ctx);
  registerGetAnalyticsTool(server, ctx);
  registerRecordDisplayTool(server, ctx);
  registerUcpCatalogTools(server, ctx);
  registerProductCardsView(server, api);
  registerGuidance(server);
  options.extension?.register(server);
  return server;
}
