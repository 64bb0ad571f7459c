import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerResult } from '@modelcontextprotocol/sdk/types.js';
import { JarvisError, type Tool, type ToolSpec } from '../core/index.js';
import { ToolExecutor, type ToolExecutorOptions } from '../tools/index.js';
import { loadMcpServerSdk, type McpServerSdk } from './mcp-sdk.js';
import {
  type McpToolDescriptor,
  toMcpCallAnswer,
  toMcpToolDescriptor,
} from './mcp-tool-listing.js';

/** Name the server reports to MCP clients unless told otherwise. */
export const MCP_SERVER_NAME = 'openjarvis';
/** Version the server reports to MCP clients unless told otherwise. */
export const MCP_SERVER_VERSION = '0.1.0';

/** Options of `createMcpServer`: what the server reports, and how its `ToolExecutor` runs calls. */
export interface McpServerOptions extends Omit<ToolExecutorOptions, 'confirm'> {
  /** Server name reported to clients (default `openjarvis`). */
  readonly name?: string;
  /** Server version reported to clients. */
  readonly version?: string;
  /**
   * Runs tools whose spec requires confirmation (default false: such calls are refused, because an MCP
   * client has no way to ask the person). The CLI sets this with `--allow-confirmation`.
   */
  readonly allowConfirmation?: boolean;
}

/**
 * An MCP server over a fixed set of tools, built on the SDK's low-level `Server` (tools keep their own JSON
 * Schemas and are validated by the `ToolExecutor`, not converted to zod). Every `connect` gets its own SDK
 * server, so one `JarvisMcpServer` can serve stdio and any number of HTTP sessions; all share one executor
 * (events, validation, timeouts and the output cap apply to every call).
 */
export class JarvisMcpServer {
  readonly #executor: ToolExecutor;
  readonly #listing: readonly McpToolDescriptor[];
  readonly #info: { readonly name: string; readonly version: string; readonly title: string };
  readonly #live = new Set<Server>();
  #connections = 0;
  #closed = false;

  constructor(tools: readonly Tool[], options: McpServerOptions = {}) {
    const { name, version, allowConfirmation, ...executorOptions } = options;
    const confirm = allowConfirmation === true ? { confirm: () => true } : {};
    this.#executor = new ToolExecutor(tools, { ...executorOptions, ...confirm });
    this.#listing = this.#executor.availableTools().map(toMcpToolDescriptor);
    this.#info = {
      name: name ?? MCP_SERVER_NAME,
      version: version ?? MCP_SERVER_VERSION,
      title: 'OpenJarvis Tool Server',
    };
  }

  /** Specs of the tools this server offers, in the order given. */
  get tools(): readonly ToolSpec[] {
    return this.#executor.availableTools();
  }

  /** How many clients are connected right now. */
  get connectionCount(): number {
    return this.#live.size;
  }

  /**
   * Serves one client over `transport` (stdio, one HTTP session, in-memory) until either side closes it;
   * loads the MCP SDK on first use (without it, throws `mcp_sdk_missing`).
   */
  async connect(transport: Transport): Promise<void> {
    this.#checkOpen();
    const sdk = await loadMcpServerSdk();
    this.#checkOpen();
    const server = this.#createSdkServer(sdk, ++this.#connections);
    this.#live.add(server);
    server.onclose = () => this.#live.delete(server);
    try {
      await server.connect(transport);
    } catch (error) {
      this.#live.delete(server);
      throw error;
    }
  }

  /** Closes every connection (running calls are cancelled); calling it again is harmless. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#live].map((server) => server.close()));
    this.#live.clear();
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new JarvisError({
        code: 'mcp_server_closed',
        message: 'This MCP server was closed; create a new one with createMcpServer()',
      });
    }
  }

  #createSdkServer(sdk: McpServerSdk, connection: number): Server {
    const { Server, ListToolsRequestSchema, CallToolRequestSchema } = sdk;
    // The low-level Server is the SDK's tool for servers whose tools carry their own JSON Schemas.
    const server = new Server(this.#info, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...this.#listing] }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const result = await this.#executor.execute(
        {
          id: `mcp-${connection}-${String(extra.requestId)}`,
          name: request.params.name,
          arguments: request.params.arguments ?? {},
        },
        { signal: extra.signal },
      );
      return toMcpCallAnswer(result) as ServerResult;
    });
    return server;
  }
}

/** Builds an MCP server offering `tools`; connect it with `serveStdio`, `serveHttp` or any SDK transport. */
export function createMcpServer(
  tools: readonly Tool[],
  options: McpServerOptions = {},
): JarvisMcpServer {
  return new JarvisMcpServer(tools, options);
}
