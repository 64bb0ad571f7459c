import type { Readable, Writable } from 'node:stream';
import { loadStdioServerTransport } from './mcp-sdk.js';
import type { JarvisMcpServer } from './mcp-server.js';

/** Streams `serveStdio` talks over; the process's own stdin and stdout by default. */
export interface McpStdioOptions {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

/** A running stdio server. */
export interface McpStdioHandle {
  /** Settles when the client goes away (stdin ends) or `close()` is called. */
  readonly closed: Promise<void>;
  /** Stops serving; calling it again is harmless. */
  close(): Promise<void>;
}

/**
 * Serves `server` over stdio (one JSON-RPC message per line). Nothing else may write to stdout meanwhile.
 * The server stops when stdin ends, so a CLI can `await handle.closed` and then exit. Loads the MCP SDK
 * first; without it, throws `mcp_sdk_missing`.
 */
export async function serveStdio(
  server: JarvisMcpServer,
  options: McpStdioOptions = {},
): Promise<McpStdioHandle> {
  const StdioServerTransport = await loadStdioServerTransport();
  // The global process, not an import of node:process: importing it opens stdin, stdout and stderr at load time.
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  transport.onclose = () => markClosed();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    stdin.off('end', onEnd);
    stdin.off('close', onEnd);
    closing ??= transport.close();
    return closing;
  };
  const onEnd = (): void => void close();
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  await server.connect(transport);
  return { closed, close };
}
