export {
  type McpCallToolResult,
  McpConnection,
  type McpConnectionOptions,
  type McpRemoteTool,
  type McpRequestOptions,
} from './mcp-connection.js';
export { McpConnectionError, type McpFailureKind } from './mcp-connection-error.js';
export {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  type McpHttpServerOptions,
  type McpServerConnectionOptions,
  type McpStdioServerOptions,
  type ResolvedMcpServerOptions,
  resolveMcpServerOptions,
} from './mcp-connection-options.js';
export { renderMcpContent } from './mcp-content.js';
export {
  type McpHttpHandle,
  type McpHttpOptions,
  serveHttp,
} from './mcp-http.js';
export { formatHostPort, isLoopbackHost } from './mcp-http-guard.js';
export { MCP_HTTP_PATH } from './mcp-http-sessions.js';
export { buildMcpTools, type McpToolBatch, type McpWarning } from './mcp-remote-tools.js';
export {
  createMcpServer,
  JarvisMcpServer,
  MCP_SERVER_NAME,
  MCP_SERVER_VERSION,
  type McpServerOptions,
} from './mcp-server.js';
export { type McpStdioHandle, type McpStdioOptions, serveStdio } from './mcp-stdio.js';
export { McpTool, type McpToolOptions } from './mcp-tool.js';
export {
  ALLOW_CONFIRMATION_FLAG,
  type McpCallToolAnswer,
  type McpToolDescriptor,
  toMcpCallAnswer,
  toMcpToolDescriptor,
} from './mcp-tool-listing.js';
export {
  createMcpToolSource,
  type McpSourceRequestOptions,
  type McpToolListing,
  type McpToolResolution,
  McpToolSource,
  type McpToolSourceOptions,
} from './mcp-tool-source.js';
