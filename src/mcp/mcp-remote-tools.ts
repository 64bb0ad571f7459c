import { describeError } from '../core/index.js';
import { compileArgumentValidator } from '../tools/index.js';
import type { McpConnection, McpRemoteTool } from './mcp-connection.js';
import { McpTool } from './mcp-tool.js';

/** Something worth telling the user that did not stop the other servers or tools from working. */
export interface McpWarning {
  /** The server it concerns. */
  readonly server: string;
  readonly message: string;
}

/** Tools built from one server's listing, and the listed tools that had to be left out. */
export interface McpToolBatch {
  readonly tools: readonly McpTool[];
  readonly warnings: readonly McpWarning[];
}

/** What MCP allows in a tool name. */
const REMOTE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Wraps a server's listed tools as `McpTool`s. A listing is untrusted input: tools with an unusable name,
 * a repeated name or an input schema that does not compile are left out with a warning naming the reason.
 */
export function buildMcpTools(
  connection: McpConnection,
  remoteTools: readonly McpRemoteTool[],
): McpToolBatch {
  const tools: McpTool[] = [];
  const warnings: McpWarning[] = [];
  const seen = new Set<string>();
  const warn = (message: string): void => {
    warnings.push({ server: connection.name, message });
  };
  for (const remote of remoteTools) {
    const problem = remoteToolProblem(remote, seen);
    if (problem !== undefined) {
      warn(`MCP server '${connection.name}': skipped a tool: ${problem}`);
      continue;
    }
    seen.add(remote.name);
    const tool = new McpTool({ connection, remote });
    try {
      compileArgumentValidator(tool.spec.parameters, tool.spec.name);
    } catch (error) {
      warn(
        `MCP server '${connection.name}': skipped tool '${remote.name}': ${describeError(error)}`,
      );
      continue;
    }
    tools.push(tool);
  }
  return { tools, warnings };
}

function remoteToolProblem(remote: McpRemoteTool, seen: ReadonlySet<string>): string | undefined {
  const name = String(remote.name);
  if (!REMOTE_NAME.test(name)) {
    return `name '${name.slice(0, 80)}' is not 1-128 letters, digits, '_', '-' or '.'`;
  }
  if (seen.has(name)) return `tool '${name}' is listed twice; the first one is kept`;
  return undefined;
}
