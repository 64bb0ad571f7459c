import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool as RemoteTool } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../core/index.js';
import { type McpTransportLink, openTransportLink } from './mcp-client-transport.js';
import { McpConnectionError, type McpFailureKind } from './mcp-connection-error.js';
import {
  type McpServerConnectionOptions,
  type ResolvedMcpServerOptions,
  resolveMcpServerOptions,
} from './mcp-connection-options.js';
import { loadMcpClientSdk, type McpClientSdk } from './mcp-sdk.js';

/** A `tools/call` answer and a `tools/list` entry, as the SDK types them. */
export type { CallToolResult as McpCallToolResult, RemoteTool as McpRemoteTool };

/** Options of an `McpConnection`. */
export interface McpConnectionOptions {
  /** The server to talk to (a `[[mcp.servers]]` entry). */
  readonly server: McpServerConnectionOptions;
  /** How this client introduces itself (default `openjarvis` 0.1.0). */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** How long a closing stdio server may take to exit before it is killed (default 2000 ms). */
  readonly closeGraceMs?: number;
}

/** Per-request options. */
export interface McpRequestOptions {
  readonly signal?: AbortSignal;
  /** Overrides the server's configured per-call timeout. */
  readonly timeoutMs?: number;
}

interface Session {
  readonly sdk: McpClientSdk;
  readonly client: Client;
  readonly link: McpTransportLink;
  tools: Promise<readonly RemoteTool[]> | undefined;
  /** Set once the session is unusable; says why. */
  lost: string | undefined;
  disposed: boolean;
}

const MAX_TOOL_PAGES = 100;

/**
 * One configured MCP server. Connects lazily on the first `listTools()` or `callTool()` (loading the MCP SDK
 * then; without it the call throws `mcp_sdk_missing`), with a connect timeout; after the server crashed or closed, or a request timed out, the next use starts a fresh
 * connection (a new child process for stdio). `close()` ends the child or the HTTP session.
 */
export class McpConnection {
  readonly name: string;
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly #options: ResolvedMcpServerOptions;
  readonly #clientInfo: { readonly name: string; readonly version: string };
  readonly #closeGraceMs: number;
  readonly #disposals = new Set<Promise<void>>();
  /** The connect in progress or done; undefined when the next use must connect. */
  #session: Promise<Session> | undefined;
  /** The session `#session` resolved to, known synchronously so a lost one is dropped at once. */
  #current: Session | undefined;
  #closed = false;

  constructor(options: McpConnectionOptions) {
    this.#options = resolveMcpServerOptions(options.server);
    this.name = this.#options.name;
    this.prefix = this.#options.prefix;
    this.timeoutMs = this.#options.timeoutMs;
    this.#clientInfo = options.clientInfo ?? { name: 'openjarvis', version: '0.1.0' };
    this.#closeGraceMs = options.closeGraceMs ?? 2_000;
  }

  /** True while a live session exists (the next call needs no connect). */
  get connected(): boolean {
    return this.#current !== undefined;
  }

  /** The server's options with defaults filled in. */
  get options(): ResolvedMcpServerOptions {
    return this.#options;
  }

  /** The server's tools (all pages), connecting first if needed; cached until the connection restarts. */
  async listTools(options: McpRequestOptions = {}): Promise<readonly RemoteTool[]> {
    const session = await this.#ready(options.signal);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    session.tools ??= this.#fetchTools(session, timeoutMs);
    try {
      return await withSignal(session.tools, options.signal);
    } catch (error) {
      session.tools = undefined;
      throw this.#failure(session, error, 'listing its tools', options.signal, timeoutMs);
    }
  }

  /** Calls a tool by its remote name; a remote `isError` comes back as a result, failures as `McpConnectionError`. */
  async callTool(
    name: string,
    args: Readonly<Record<string, unknown>>,
    options: McpRequestOptions = {},
  ): Promise<CallToolResult> {
    const session = await this.#ready(options.signal);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    // The SDK never removes its abort listener, so it gets a signal of its own, not the caller's.
    const link = linkSignal(options.signal);
    try {
      const result = await session.client.callTool({ name, arguments: { ...args } }, undefined, {
        timeout: timeoutMs,
        signal: link.signal,
      });
      return normalizeCallResult(result);
    } catch (error) {
      throw this.#failure(session, error, `calling tool '${name}'`, options.signal, timeoutMs);
    } finally {
      link.unlink();
    }
  }

  /** Closes the connection (kills a stdio child); later calls fail with kind `closed`. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#session;
    this.#session = undefined;
    this.#current = undefined;
    const session = await pending?.catch(() => undefined);
    if (session !== undefined) this.#dispose(session);
    await Promise.allSettled([...this.#disposals]);
  }

  async #ready(signal: AbortSignal | undefined): Promise<Session> {
    if (this.#closed) {
      throw this.#error('closed', `The connection to MCP server '${this.name}' was closed`);
    }
    if (this.#session === undefined) {
      const attempt = this.#connect();
      this.#session = attempt;
      attempt.catch(() => {
        if (this.#session === attempt) this.#session = undefined;
      });
    }
    return withSignal(this.#session, signal, () =>
      this.#error('cancelled', `Connecting to MCP server '${this.name}' was cancelled`),
    );
  }

  async #connect(): Promise<Session> {
    const sdk = await loadMcpClientSdk();
    let broken: (error: unknown) => void = () => undefined;
    const link = openTransportLink(sdk, this.#options, (error) => broken(error));
    const client = new sdk.Client(this.#clientInfo, { capabilities: {} });
    const session: Session = {
      sdk,
      client,
      link,
      tools: undefined,
      lost: undefined,
      disposed: false,
    };
    try {
      await client.connect(link.transport, { timeout: this.#options.connectTimeoutMs });
    } catch (error) {
      this.#dispose(session);
      const reason = isTimeout(sdk, error)
        ? `no answer to the MCP handshake within ${seconds(this.#options.connectTimeoutMs)}s`
        : describeError(error);
      const message = `Could not connect to MCP server '${this.name}' (${link.description}): ${reason}${stderrNote(link)}`;
      throw this.#error('connect_failed', message, error);
    }
    client.onclose = () => this.#lose(session, 'the connection closed');
    broken = (error) => this.#lose(session, `the answer stream broke: ${describeError(error)}`);
    if (!this.#closed) this.#current = session;
    return session;
  }

  async #fetchTools(session: Session, timeoutMs: number): Promise<readonly RemoteTool[]> {
    const tools: RemoteTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const answer = await session.client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: timeoutMs,
      });
      tools.push(...answer.tools);
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** Marks a session unusable and shuts it down; the next use connects afresh. */
  #lose(session: Session, reason: string): void {
    if (session.lost !== undefined) return;
    session.lost = reason;
    if (this.#current === session) {
      this.#current = undefined;
      this.#session = undefined;
    }
    this.#dispose(session);
  }

  #dispose(session: Session): void {
    if (session.disposed) return;
    session.disposed = true;
    session.lost ??= 'the connection was shut down';
    const done = session.link.shutdown(this.#closeGraceMs).catch(() => undefined);
    this.#disposals.add(done);
    void done.then(() => this.#disposals.delete(done));
  }

  #failure(
    session: Session,
    error: unknown,
    doing: string,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): McpConnectionError {
    const server = `MCP server '${this.name}'`;
    const kind = classify(session.sdk, error, signal);
    if (kind === 'cancelled') return this.#error(kind, `${server}: ${doing} was cancelled`, error);
    if (kind === 'remote_error') {
      return this.#error(kind, `${server} refused ${doing}: ${describeError(error)}`, error);
    }
    const detail = session.lost ?? describeError(error);
    this.#lose(session, kind === 'timed_out' ? 'a request timed out' : describeError(error));
    if (kind === 'timed_out') {
      const message = `${server} did not answer within ${seconds(timeoutMs)}s while ${doing}; it will be restarted on the next use`;
      return this.#error(kind, message, error);
    }
    const message = `${server} failed while ${doing} (${detail}${stderrNote(session.link)}); it will be restarted on the next use`;
    return this.#error(kind, message, error);
  }

  #error(kind: McpFailureKind, message: string, cause?: unknown): McpConnectionError {
    return new McpConnectionError({ kind, server: this.name, message, cause });
  }
}

function isTimeout(sdk: McpClientSdk, error: unknown): boolean {
  return error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout;
}

function seconds(ms: number): number {
  return Number((ms / 1000).toFixed(3));
}

function classify(
  sdk: McpClientSdk,
  error: unknown,
  signal: AbortSignal | undefined,
): McpFailureKind {
  if (signal?.aborted === true) return 'cancelled';
  if (error instanceof sdk.McpError) {
    if (error.code === sdk.ErrorCode.RequestTimeout) return 'timed_out';
    if (error.code === sdk.ErrorCode.ConnectionClosed) return 'connection_lost';
    return 'remote_error';
  }
  return 'connection_lost';
}

function normalizeCallResult(result: Record<string, unknown>): CallToolResult {
  if (Array.isArray(result.content)) return result as CallToolResult;
  // Servers on the 2024-10-07 protocol answer `{ toolResult }`.
  const text = JSON.stringify(result.toolResult ?? null);
  return { content: [{ type: 'text', text }], isError: false };
}

function stderrNote(link: McpTransportLink): string {
  const tail = link.stderrTail();
  return tail === '' ? '' : `; server stderr: ${tail}`;
}

/** A fresh signal that follows `parent` until `unlink()`. */
function linkSignal(parent: AbortSignal | undefined): { signal: AbortSignal; unlink(): void } {
  const controller = new AbortController();
  if (parent === undefined) return { signal: controller.signal, unlink: () => undefined };
  const abort = (): void => controller.abort(parent.reason);
  if (parent.aborted) abort();
  else parent.addEventListener('abort', abort, { once: true });
  return { signal: controller.signal, unlink: () => parent.removeEventListener('abort', abort) };
}

/** Waits for `promise`, but rejects as soon as `signal` aborts. */
function withSignal<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => Error = () => new Error('cancelled'),
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
