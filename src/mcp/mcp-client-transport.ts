import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ResolvedMcpServerOptions } from './mcp-connection-options.js';
import type { McpClientSdk } from './mcp-sdk.js';

/** A client transport plus what the connection needs to report on it and to shut it down. */
export interface McpTransportLink {
  readonly transport: Transport;
  /** How the server is reached, for messages: `stdio: node server.js` or the URL. */
  readonly description: string;
  /** The last lines the child wrote to stderr (stdio only), for crash messages. */
  stderrTail(): string;
  /** Shuts the transport down; a child that has not exited after `graceMs` is killed. */
  shutdown(graceMs: number): Promise<void>;
}

const STDERR_TAIL_CHARS = 2_000;

/** Opens (but does not start) the transport one configured server needs, with the loaded SDK's classes. */
export function openTransportLink(
  sdk: McpClientSdk,
  options: ResolvedMcpServerOptions,
  onBroken: (error: unknown) => void,
): McpTransportLink {
  return options.transport === 'stdio' ? stdioLink(sdk, options) : httpLink(sdk, options, onBroken);
}

function stdioLink(
  sdk: McpClientSdk,
  options: ResolvedMcpServerOptions & { transport: 'stdio' },
): McpTransportLink {
  const transport = new sdk.StdioClientTransport({
    command: options.command,
    args: [...(options.args ?? [])],
    env: { ...options.env },
    stderr: 'pipe',
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  let tail = '';
  // Drained always: a child blocked on a full stderr pipe would stop answering.
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  let exited = false;
  // Set before the Client connects, which keeps this handler and calls it first.
  transport.onclose = () => {
    exited = true;
  };
  return {
    transport,
    description: `stdio: ${[options.command, ...(options.args ?? [])].join(' ')}`,
    stderrTail: () => lastLines(tail),
    shutdown: async (graceMs) => {
      const pid = transport.pid;
      // The SDK ends stdin, then waits up to 2 s before SIGTERM and 2 s more before SIGKILL.
      const killer = setTimeout(() => {
        if (!exited && pid !== null) killQuietly(pid);
      }, graceMs);
      try {
        await transport.close();
      } finally {
        clearTimeout(killer);
      }
    },
  };
}

function httpLink(
  sdk: McpClientSdk,
  options: ResolvedMcpServerOptions & { transport: 'http' },
  onBroken: (error: unknown) => void,
): McpTransportLink {
  const transport = new sdk.StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    fetch: watchPostStreams(onBroken),
  });
  return {
    transport,
    description: options.url,
    stderrTail: () => '',
    shutdown: async (graceMs) => {
      // Ends the session politely (DELETE), but never waits long for a server that does not answer.
      const goodbye = transport.terminateSession().catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([goodbye, deadline]);
      clearTimeout(timer);
      await transport.close();
    },
  };
}

/**
 * A fetch that reports a POST answer stream (SSE) breaking before it ended. The SDK only logs such a break
 * and leaves the request waiting for its timeout; reporting it lets a crashed HTTP server fail the call at once.
 */
function watchPostStreams(onBroken: (error: unknown) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const isStream = response.headers.get('content-type')?.includes('text/event-stream') === true;
    if (init?.method !== 'POST' || !response.ok || !isStream || response.body === null) {
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          if (init.signal?.aborted !== true) onBroken(error);
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function lastLines(text: string): string {
  const lines = text
    .trim()
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  return lines.slice(-3).join(' | ').slice(-500);
}
