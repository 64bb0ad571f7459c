import {
  createToolSpec,
  describeError,
  type ToolArguments,
  type ToolContext,
  type ToolErrorCode,
  type ToolResult,
  type ToolSpec,
} from '../core/index.js';
import { BaseTool } from '../tools/index.js';
import type { McpConnection, McpRemoteTool } from './mcp-connection.js';
import { McpConnectionError, type McpFailureKind } from './mcp-connection-error.js';
import { renderMcpContent } from './mcp-content.js';

/** Options of an `McpTool`. */
export interface McpToolOptions {
  /** The server the tool lives on. */
  readonly connection: McpConnection;
  /** The tool as the server listed it. */
  readonly remote: Pick<McpRemoteTool, 'name' | 'description' | 'inputSchema'>;
}

/** Extra time the executor allows beyond connect + call timeouts, so the connection's clearer messages win. */
const EXECUTOR_GRACE_MS = 1_000;

const CODE_BY_KIND: Readonly<Record<McpFailureKind, ToolErrorCode>> = {
  connect_failed: 'execution_failed',
  connection_lost: 'execution_failed',
  timed_out: 'timed_out',
  cancelled: 'cancelled',
  remote_error: 'tool_error',
  closed: 'execution_failed',
};

/**
 * A tool of an external MCP server, usable like any other tool: its name is the remote name behind the
 * server's prefix (`files.read`), its parameters the remote input schema. Calls go to the server with the
 * per-call timeout and the executor's signal; every failure comes back as a failed result naming the server.
 */
export class McpTool extends BaseTool {
  readonly toolId: string;
  readonly spec: ToolSpec;
  /** The tool's name on the server. */
  readonly remoteName: string;
  readonly #connection: McpConnection;

  constructor(options: McpToolOptions) {
    super();
    const { connection, remote } = options;
    this.#connection = connection;
    this.remoteName = remote.name;
    this.toolId = `${connection.prefix}${remote.name}`;
    this.spec = createToolSpec({
      name: this.toolId,
      description: remote.description ?? '',
      parameters: remote.inputSchema,
      category: 'mcp',
      timeoutMs: connection.options.connectTimeoutMs + connection.timeoutMs + EXECUTOR_GRACE_MS,
      metadata: { mcp_server: connection.name, mcp_tool: remote.name },
    });
  }

  /** The server this tool lives on. */
  get server(): string {
    return this.#connection.name;
  }

  /** Calls the remote tool; never throws. */
  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    const metadata = { mcp_server: this.server, mcp_tool: this.remoteName };
    try {
      const result = await this.#connection.callTool(
        this.remoteName,
        params,
        context?.signal === undefined ? {} : { signal: context.signal },
      );
      const text = renderMcpContent(result);
      if (result.isError !== true) return this.success(text, { metadata });
      const detail = text === '' ? 'no details given' : text;
      const message = `MCP server '${this.server}' reported an error from tool '${this.remoteName}': ${detail}`;
      return this.failure(message, 'tool_error', { metadata });
    } catch (error) {
      if (error instanceof McpConnectionError) {
        return this.failure(error.message, CODE_BY_KIND[error.kind], { metadata });
      }
      const message = `MCP server '${this.server}': calling tool '${this.remoteName}' failed: ${describeError(error)}`;
      return this.failure(message, 'execution_failed', { metadata });
    }
  }
}
