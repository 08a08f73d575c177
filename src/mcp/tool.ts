import { type McpUiAppToolConfig, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { CallToolResult, McpServer, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { AppError, type FieldError, type Problem, toProblem } from '../core/errors.js';
import type { Logger } from '../core/shared-ports.js';
import { type AisleApi, ApiProblemError } from './api.js';

/** What every tool needs besides its arguments. */
export interface ToolContext {
  api: AisleApi;
  logger: Logger;
  /** The id a problem carries: the HTTP request's over /mcp, a fresh one per call over stdio. */
  requestId(): string;
  /** Told of each tool call when it ends: the tool, whether it succeeded, and how long it took. */
  onToolCall?(tool: string, ok: boolean, seconds: number): void;
}

export interface AisleTool<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  /** Written for a model: when to call the tool and what comes back. */
  description: string;
  input: I;
  output: O;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>;
  /** MCP Apps: the view the tool's results render in (`resourceUri`) and who may call it (`visibility`). */
  ui?: McpUiAppToolConfig['_meta']['ui'];
  /** Runs on validated arguments: the structured result and its rendering for clients that read only text. */
  run(args: z.output<I>): Promise<{ structured: z.output<O>; text: string }>;
}

/**
 * The tool's schema as the SDK sees it: listed as the zod schema's JSON Schema, but accepting any
 * arguments, because the tool validates them itself (see registerAisleTool).
 */
function listedOnly<S extends z.ZodObject>(schema: S): StandardSchemaWithJSON<unknown, z.output<S>> {
  return {
    '~standard': { version: 1, vendor: 'aisle', validate: (value: unknown) => ({ value: value as z.output<S> }), jsonSchema: schema['~standard'].jsonSchema },
  };
}

/**
 * Registers a tool with the SDK: its listing shows the zod schemas as JSON Schema, on every
 * protocol era. The tool validates its own arguments: the SDK would answer invalid ones with bare
 * text, and a caller's mistake must come back like every other error, as a `validation_failed`
 * problem naming each field. The SDK still checks a successful result against the output schema.
 */
export function registerAisleTool<I extends z.ZodObject, O extends z.ZodObject>(server: McpServer, ctx: ToolContext, tool: AisleTool<I, O>): void {
  const execute = async (args: unknown): Promise<CallToolResult> => {
    const started = performance.now();
    const result = await run(args);
    ctx.onToolCall?.(tool.name, result.isError !== true, (performance.now() - started) / 1000);
    return result;
  };
  const run = async (args: unknown): Promise<CallToolResult> => {
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) return errorResult(toProblem(validationError(parsed.error), ctx.requestId()));
    try {
      const { structured, text } = await tool.run(parsed.data);
      return { structuredContent: structured as Record<string, unknown>, content: [{ type: 'text', text }] };
    } catch (err) {
      return errorResult(problemOf(err, ctx, tool.name));
    }
  };
  const { name, title, description, annotations, ui } = tool;
  const config = { title, description, inputSchema: listedOnly(tool.input), outputSchema: tool.output, annotations };
  // registerAppTool also writes the legacy `_meta["ui/resourceUri"]` key older hosts read.
  if (ui) registerAppTool(server, name, { ...config, _meta: { ui } }, (args: unknown) => execute(args));
  else server.registerTool(name, config, (args: unknown) => execute(args));
}

/**
 * A failed call: one line for a model to read, then the problem object as JSON text. No
 * `structuredContent`: SDK 1.x clients check it against the tool's output schema even on errors
 * and throw -32602 instead of returning the result (typescript-sdk#1943, #2748).
 */
function errorResult(problem: Problem): CallToolResult {
  const line = `Error ${problem.status} ${problem.code}: ${problem.detail}`.replace(/\s*\n\s*/g, ' ');
  return {
    isError: true,
    content: [
      { type: 'text', text: line },
      { type: 'text', text: JSON.stringify(problem) },
    ],
  };
}

function problemOf(err: unknown, ctx: ToolContext, tool: string): Problem {
  if (err instanceof ApiProblemError) return err.problem;
  const error = err instanceof AppError ? err : new AppError('internal_error', 'unexpected error', { cause: err });
  if (error.status >= 500) ctx.logger.error({ err: error.cause ?? err, tool }, 'tool call failed');
  return toProblem(error, ctx.requestId());
}

function validationError(error: z.ZodError): AppError {
  const errors: FieldError[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push({ path: base === '' ? key : `${base}.${key}`, message: 'unknown field' });
    } else {
      errors.push({ path: base === '' ? '(arguments)' : base, message: issue.message });
    }
  }
  return new AppError('validation_failed', `Invalid arguments. ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
}
