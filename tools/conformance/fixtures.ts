/**
 * The MCP conformance suite's fixtures: tools, resources and prompts whose names and answers the
 * suite fixes (the "Server Implementation Requirements" of each scenario in
 * @modelcontextprotocol/conformance 0.2.0-alpha.12). They exist so the suite can check how
 * Aisle's MCP layer carries content, errors, progress, multi-round-trip input and the protocol
 * plumbing around them; none of it is Aisle's domain. Registered only by tools/conformance/run.ts,
 * beside Aisle's own tools on the same per-request server; `npm start` never registers them.
 */
import { randomBytes } from 'node:crypto';
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  fromJsonSchema,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  type McpServer,
  ResourceTemplate,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpServerExtension } from '../../src/mcp/server.js';

/** A 1×1 PNG and a 44-byte silent WAV: content the suite only checks for type and MIME type. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV_SILENCE = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const nameRequest = (message: string, field: string) =>
  inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } });

/** The requestState the multi-round-trip fixtures mint; HMAC-signed, so a tampered one is refused before any handler runs. */
type FixtureState = { tool: string; round: number; answers?: Record<string, string> };

/** Fixtures that take no arguments: one registration each. */
function registerSimpleTools(server: McpServer): void {
  const tools: [string, string, (ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>][] = [
    ['test_simple_text', 'Tests simple text content response', async () => text('This is a simple text response for testing.')],
    ['test_image_content', 'Tests image content response', async () => ({ content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] })],
    ['test_audio_content', 'Tests audio content response', async () => ({ content: [{ type: 'audio', data: WAV_SILENCE, mimeType: 'audio/wav' }] })],
    [
      'test_embedded_resource',
      'Tests embedded resource content response',
      async () => ({
        content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
      }),
    ],
    [
      'test_multiple_content_types',
      'Tests response with multiple content types (text, image, resource)',
      async () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
          },
        ],
      }),
    ],
    [
      'test_error_handling',
      'Tests error response handling',
      async () => {
        throw new Error('This tool intentionally returns an error for testing');
      },
    ],
    [
      'test_tool_with_progress',
      'Tests tool that reports progress notifications',
      async (ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken ?? 0;
        for (const progress of [0, 50, 100]) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
          });
          if (progress < 100) await wait(50);
        }
        return text(String(progressToken));
      },
    ],
    [
      'test_tool_with_logging',
      'Tests tool that emits log messages during execution',
      async (ctx) => {
        for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
          await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data } });
          await wait(50);
        }
        return text('Tool with logging executed successfully');
      },
    ],
    // 2026-07-28 stateless checks: a log without the request's logLevel must not be sent.
    [
      'test_logging_tool',
      'Logs through the SDK, which sends nothing when the request set no log level',
      async (ctx) => {
        await ctx.mcpReq.log('info', 'test_logging_tool ran');
        return text('logged only if the request asked for a log level');
      },
    ],
    // Input the client did not declare a capability for: the SDK answers -32021 instead of sending it.
    [
      'test_missing_capability',
      'Asks for sampling whether or not the client declared it',
      async () =>
        inputRequired({
          inputRequests: {
            question: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 10 }),
          },
        }),
    ],
  ];
  for (const [name, description, run] of tools) server.registerTool(name, { description, inputSchema: z.object({}) }, (_args, ctx) => run(ctx));
}

/** Schemas given as JSON Schema, not zod: keywords zod does not write, and an SEP-2243 header parameter. */
function registerJsonSchemaTools(server: McpServer): void {
  const draft = 'https://json-schema.org/draft/2020-12/schema';
  const inputSchema = fromJsonSchema({
    $schema: draft,
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, which the suite's fixture checks for.
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  });
  server.registerTool('json_schema_2020_12_tool', { description: 'Tool with JSON Schema 2020-12 features', inputSchema }, async (args) =>
    text(`called with ${JSON.stringify(args)}`),
  );
  // x-mcp-header is an MCP extension keyword, unknown to the JSON Schema type.
  const regionSchema = fromJsonSchema({
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    required: ['region'],
  } as Parameters<typeof fromJsonSchema>[0]);
  server.registerTool(
    'test_custom_header',
    { description: 'Takes its region argument also as the Mcp-Param-Region header', inputSchema: regionSchema },
    async (args) => text(`region ${JSON.stringify(args)}`),
  );
}

function registerInputRequiredTools(server: McpServer, codec: { mint(state: FixtureState): Promise<string> }): void {
  const userName = () => nameRequest('What is your name?', 'name');
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'SEP-2322: one elicitation, then a greeting', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name');
      if (typeof answer?.name !== 'string') return inputRequired({ inputRequests: { user_name: userName() } });
      return text(`Hello, ${answer.name}!`);
    },
  );
  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Asks for input in its result, never as a request on the response stream', inputSchema: z.object({}) },
    async () => inputRequired({ inputRequests: { user_name: userName() } }),
  );
  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'SEP-2322: one sampling request', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.capital_question as { content?: { text?: string } } | undefined;
      if (answer === undefined) {
        const question = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
          maxTokens: 100,
        });
        return inputRequired({ inputRequests: { capital_question: question } });
      }
      return text(`The model answered: ${answer.content?.text ?? '(no text)'}`);
    },
  );
  server.registerTool(
    'test_input_required_result_list_roots',
    { description: 'SEP-2322: one roots/list request', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.client_roots as { roots?: { uri: string }[] } | undefined;
      if (answer === undefined) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
      return text(`Roots: ${(answer.roots ?? []).map((r) => r.uri).join(', ') || '(none)'}`);
    },
  );
  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'SEP-2322: input plus requestState', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<FixtureState>();
      if (state?.tool === 'request_state' && ctx.mcpReq.inputResponses?.confirm !== undefined) return text('state-ok: the requestState came back intact');
      const confirm = inputRequired.elicit({
        message: 'Please confirm',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      return inputRequired({ inputRequests: { confirm }, requestState: await codec.mint({ tool: 'request_state', round: 1 }) });
    },
  );
  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'SEP-2322: HMAC-signed requestState', inputSchema: z.object({}) },
    async (_args, ctx) => {
      if (ctx.mcpReq.requestState<FixtureState>()?.tool === 'tampered') return text('state verified');
      const confirm = inputRequired.elicit({
        message: 'Please confirm',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      return inputRequired({ inputRequests: { confirm }, requestState: await codec.mint({ tool: 'tampered', round: 1 }) });
    },
  );
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'SEP-2322: elicitation, sampling and roots at once', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses ?? {};
      if (ctx.mcpReq.requestState<FixtureState>()?.tool === 'multiple' && ['user_name', 'greeting', 'client_roots'].every((k) => responses[k] !== undefined))
        return text('All three inputs received.');
      const greeting = inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 });
      const inputRequests = { user_name: userName(), greeting, client_roots: inputRequired.listRoots() };
      return inputRequired({ inputRequests, requestState: await codec.mint({ tool: 'multiple', round: 1 }) });
    },
  );
  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'SEP-2322: two rounds of input, then the result', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<FixtureState>();
      const name = acceptedContent(ctx.mcpReq.inputResponses, 'step1')?.name;
      const color = acceptedContent(ctx.mcpReq.inputResponses, 'step2')?.color;
      if (state?.tool === 'multi_round' && state.round === 2 && typeof color === 'string') return text(`${state.answers?.name ?? 'You'} likes ${color}.`);
      if (state?.tool === 'multi_round' && state.round === 1 && typeof name === 'string') {
        const requestState = await codec.mint({ tool: 'multi_round', round: 2, answers: { name } });
        return inputRequired({ inputRequests: { step2: nameRequest('Step 2: What is your favorite color?', 'color') }, requestState });
      }
      return inputRequired({
        inputRequests: { step1: nameRequest('Step 1: What is your name?', 'name') },
        requestState: await codec.mint({ tool: 'multi_round', round: 1 }),
      });
    },
  );
  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'SEP-2322: asks only for what the client declared', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
      const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? {}) as ClientCapabilities;
      const inputRequests: Record<string, InputRequest> = {};
      if (declared.sampling)
        inputRequests.question = inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 10 });
      if (declared.elicitation) inputRequests.user_name = userName();
      if (declared.roots) inputRequests.client_roots = inputRequired.listRoots();
      if (Object.keys(inputRequests).length === 0) return text('The client declared no capability to ask through.');
      if (Object.keys(ctx.mcpReq.inputResponses ?? {}).length > 0) return text('Inputs received.');
      return inputRequired({ inputRequests });
    },
  );
}

function registerResourcesAndPrompts(server: McpServer): void {
  server.registerResource('static-text', 'test://static-text', { title: 'Static Text Resource', mimeType: 'text/plain' }, async () => ({
    contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { title: 'Static Binary Resource', mimeType: 'image/png' }, async () => ({
    contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_1X1 }],
  }));
  server.registerResource('watched-resource', 'test://watched-resource', { title: 'Watched Resource', mimeType: 'text/plain' }, async () => ({
    contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }],
  }));
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { title: 'Resource Template', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.toString(), mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
    }),
  );
  // 2025 subscriptions: accepted; a stateless server has no connection to send updates on.
  server.server.setRequestHandler('resources/subscribe', async () => ({}));
  server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
  server.server.setRequestHandler('logging/setLevel', async () => ({}));
  server.server.setRequestHandler('completion/complete', async () => ({ completion: { values: [], total: 0, hasMore: false } }));

  server.registerPrompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    { title: 'Prompt With Arguments', description: 'A prompt with required arguments', argsSchema: z.object({ arg1: z.string(), arg2: z.string() }) },
    async ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { title: 'Prompt With Embedded Resource', description: 'A prompt that includes an embedded resource', argsSchema: z.object({ resourceUri: z.string() }) },
    async ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  server.registerPrompt(
    'test_input_required_result_prompt',
    { title: 'SEP-2322 prompt', description: 'Asks the client for context before it answers' },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context');
      if (typeof answer?.context !== 'string')
        return inputRequired({ inputRequests: { user_context: nameRequest('What context should the prompt use?', 'context') } });
      return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.context}` } }] };
    },
  );
}

/** The fixtures as an extension of Aisle's per-request MCP server, with a requestState key for this process. */
export function conformanceFixtures(): McpServerExtension {
  const codec = createRequestStateCodec<FixtureState>({ key: randomBytes(32) });
  return {
    capabilities: { logging: {}, completions: {}, resources: { subscribe: true } },
    requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
    register: (server) => {
      registerSimpleTools(server);
      registerJsonSchemaTools(server);
      registerInputRequiredTools(server, codec);
      registerResourcesAndPrompts(server);
    },
  };
}
