// A tool the LLM agent can call: a zod schema (validates the model's arguments and gives the JSON
// schema the model sees) and what it does in the sandbox.
import { z } from 'zod';
import type { ToolSpec } from '../../models/types.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import type { Mailbox } from '../types.ts';

export interface ToolContext {
  sandbox: Sandbox;
  mailbox?: Mailbox;
  signal: AbortSignal;
}

export interface ToolResult {
  output: string;
  exitCode?: number;
  /** The agent is done. */
  finish?: boolean;
}

export interface ToolDefinition<Args> {
  name: string;
  description: string;
  schema: z.ZodType<Args>;
  run(args: Args, context: ToolContext): Promise<ToolResult>;
}

/** A tool whose arguments have been checked against its own schema before it runs. */
export interface Tool {
  name: string;
  description: string;
  schema: z.ZodType;
  run(args: unknown, context: ToolContext): Promise<ToolResult>;
}

export function defineTool<Args>(definition: ToolDefinition<Args>): Tool {
  // Safe: run only ever receives the output of parseArguments, i.e. of this schema.
  return { ...definition, run: (args, context) => definition.run(args as Args, context) };
}

export function toolSpec(tool: Tool): ToolSpec {
  const { $schema: _, ...parameters } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

/**
 * Parses and validates a tool call's raw arguments. Problems come back as text for the model
 * (a malformed call is the model's mistake to fix, not a crash).
 */
export function parseArguments(tool: Tool, raw: string): { args: unknown } | { error: string } {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return { error: `the arguments of ${tool.name} are not valid JSON (${(error as Error).message}); send a JSON object` };
  }
  const parsed = tool.schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return { error: `invalid arguments for ${tool.name}: ${problems}` };
  }
  return { args: parsed.data };
}
