import type { ToolResult, ToolSpec } from '../core/index.js';

/** The flag that lets an MCP server run tools whose spec requires confirmation. */
export const ALLOW_CONFIRMATION_FLAG = '--allow-confirmation';

/** One entry of an MCP `tools/list` answer. */
export interface McpToolDescriptor {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
}

/** The body of an MCP `tools/call` answer: the tool's text, with `isError` for failures. */
export interface McpCallToolAnswer {
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly isError: boolean;
  readonly [key: string]: unknown;
}

/**
 * Describes a tool for `tools/list`. MCP requires an object schema, so a schema without `type` (such as the
 * empty "any arguments" schema `{}`) is published as `type: 'object'`; everything else passes through verbatim.
 */
export function toMcpToolDescriptor(spec: ToolSpec): McpToolDescriptor {
  const { type: _type, ...rest } = spec.parameters;
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: { type: 'object', ...rest },
  };
}

/** Turns an executor result into a `tools/call` answer; a refused confirmation names the flag that allows it. */
export function toMcpCallAnswer(result: ToolResult): McpCallToolAnswer {
  const text =
    !result.success && result.errorCode === 'confirmation_required'
      ? `Tool '${result.toolName}' requires confirmation, which an MCP client cannot give; it is refused ` +
        `unless the server is started with ${ALLOW_CONFIRMATION_FLAG}.`
      : result.content;
  return { content: [{ type: 'text', text }], isError: !result.success };
}
