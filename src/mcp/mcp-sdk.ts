import type * as SdkClient from '@modelcontextprotocol/sdk/client/index.js';
import type * as SdkStdioClient from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as SdkHttpClient from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as SdkServer from '@modelcontextprotocol/sdk/server/index.js';
import type * as SdkStdioServer from '@modelcontextprotocol/sdk/server/stdio.js';
import type * as SdkHttpServer from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';
import { JarvisError } from '../core/index.js';

// The SDK is an optional package: every module here imports it on first use (types only at load time), so
// importing openjarvis works without it and only MCP features need it installed.

/** The npm name of the MCP SDK. */
export const MCP_SDK_PACKAGE = '@modelcontextprotocol/sdk';
/** The SDK version package.json asks for (a test keeps the two equal). */
export const MCP_SDK_VERSION = '1.32.2';
/** The command that installs the SDK. */
export const MCP_SDK_INSTALL_COMMAND = `npm install ${MCP_SDK_PACKAGE}@${MCP_SDK_VERSION}`;

/** The SDK pieces an MCP client uses: the Client, both transports and the error types. */
export interface McpClientSdk {
  readonly Client: typeof SdkClient.Client;
  readonly StdioClientTransport: typeof SdkStdioClient.StdioClientTransport;
  readonly StreamableHTTPClientTransport: typeof SdkHttpClient.StreamableHTTPClientTransport;
  readonly McpError: typeof SdkTypes.McpError;
  readonly ErrorCode: typeof SdkTypes.ErrorCode;
}

/** The SDK pieces `JarvisMcpServer` uses: the low-level Server and the two request schemas it answers. */
export interface McpServerSdk {
  readonly Server: typeof SdkServer.Server;
  readonly ListToolsRequestSchema: typeof SdkTypes.ListToolsRequestSchema;
  readonly CallToolRequestSchema: typeof SdkTypes.CallToolRequestSchema;
}

/** The error thrown when an MCP feature is used without the SDK installed; it names the install command. */
export function mcpSdkMissingError(cause?: unknown): JarvisError {
  return new JarvisError({
    code: 'mcp_sdk_missing',
    message: `MCP needs the optional package ${MCP_SDK_PACKAGE}, which is not installed; install it with \`${MCP_SDK_INSTALL_COMMAND}\``,
    cause,
  });
}

/** True for Node's "Cannot find package/module" error about the SDK itself. */
export function isMcpSdkMissing(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { readonly code?: unknown }).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return error.message.includes(`'${MCP_SDK_PACKAGE}`);
}

/** Runs `load` (a dynamic import of SDK modules); a missing SDK becomes `mcpSdkMissingError`. */
export async function importMcpSdk<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw isMcpSdkMissing(error) ? mcpSdkMissingError(error) : error;
  }
}

/** Loads the SDK's client side on first use. */
export async function loadMcpClientSdk(): Promise<McpClientSdk> {
  const [client, stdio, http, types] = await importMcpSdk(() =>
    Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]),
  );
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}

/** Loads the SDK's low-level Server and the request schemas on first use. */
export async function loadMcpServerSdk(): Promise<McpServerSdk> {
  const [server, types] = await importMcpSdk(() =>
    Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]),
  );
  return {
    Server: server.Server,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    CallToolRequestSchema: types.CallToolRequestSchema,
  };
}

/** Loads the SDK's stdio server transport on first use. */
export async function loadStdioServerTransport(): Promise<
  typeof SdkStdioServer.StdioServerTransport
> {
  const module = await importMcpSdk(() => import('@modelcontextprotocol/sdk/server/stdio.js'));
  return module.StdioServerTransport;
}

/** Loads the SDK's Streamable HTTP server transport on first use. */
export async function loadHttpServerTransport(): Promise<
  typeof SdkHttpServer.StreamableHTTPServerTransport
> {
  const module = await importMcpSdk(
    () => import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  );
  return module.StreamableHTTPServerTransport;
}
