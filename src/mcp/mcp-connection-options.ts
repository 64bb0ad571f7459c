import { JarvisError } from '../core/index.js';

interface McpServerConnectionBase {
  /** The server's name in config, messages and the default tool prefix. */
  readonly name: string;
  /** Tool names become `<prefix><tool>`; default `<name>.`. */
  readonly prefix?: string;
  /** Longest a tool call may take before it fails as timed out (default 60 s). */
  readonly timeoutMs?: number;
  /** Longest starting the server and the MCP handshake may take (default 30 s). */
  readonly connectTimeoutMs?: number;
}

/** A server started as a child process and spoken to over its stdin/stdout. */
export interface McpStdioServerOptions extends McpServerConnectionBase {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args?: readonly string[];
  /** Extra environment variables; the child otherwise inherits only HOME, PATH, SHELL, TERM, USER, LOGNAME. */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the child (default: this process's). */
  readonly cwd?: string;
}

/** A server reached over MCP Streamable HTTP. */
export interface McpHttpServerOptions extends McpServerConnectionBase {
  readonly transport: 'http';
  readonly url: string;
  /** Extra request headers, e.g. `Authorization`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One external MCP server (structurally the config's `[[mcp.servers]]` entry, so it can be passed through). */
export type McpServerConnectionOptions = McpStdioServerOptions | McpHttpServerOptions;

/** Options with every default filled in and checked. */
export type ResolvedMcpServerOptions = McpServerConnectionOptions & {
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
};

/** Per-call timeout when none is configured. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
/** Connect (spawn + handshake) timeout when none is configured. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;

/** Checks one server's options and fills the defaults; throws `JarvisError` (`invalid_mcp_server`) naming the problem. */
export function resolveMcpServerOptions(
  options: McpServerConnectionOptions,
): ResolvedMcpServerOptions {
  const name = typeof options?.name === 'string' ? options.name.trim() : '';
  if (name === '') invalid('(unnamed)', 'needs a non-empty name');
  checkTransport(name, options);
  return {
    ...options,
    prefix: options.prefix ?? `${name}.`,
    timeoutMs: positive(name, 'timeoutMs', options.timeoutMs, DEFAULT_MCP_CALL_TIMEOUT_MS),
    connectTimeoutMs: positive(
      name,
      'connectTimeoutMs',
      options.connectTimeoutMs,
      DEFAULT_MCP_CONNECT_TIMEOUT_MS,
    ),
  };
}

function checkTransport(name: string, options: McpServerConnectionOptions): void {
  if (options.transport === 'stdio') {
    if (typeof options.command !== 'string' || options.command.trim() === '') {
      invalid(name, "uses transport 'stdio' but has no command");
    }
    const args: unknown = options.args ?? [];
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) {
      invalid(name, 'has args that are not a list of strings');
    }
    return;
  }
  if (options.transport === 'http') {
    if (!isHttpUrl(options.url)) {
      invalid(name, `has url '${String(options.url)}'; expected an http:// or https:// URL`);
    }
    return;
  }
  invalid(
    name,
    `has transport '${String((options as { transport?: unknown }).transport)}'; expected 'stdio' or 'http'`,
  );
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function positive(name: string, key: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    invalid(name, `has ${key} ${String(value)}; expected a positive number of milliseconds`);
  }
  return value;
}

function invalid(name: string, problem: string): never {
  throw new JarvisError({ code: 'invalid_mcp_server', message: `MCP server '${name}' ${problem}` });
}
