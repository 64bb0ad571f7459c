import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describeError } from '../core/index.js';
import { isLoopbackHostHeader } from './mcp-http-guard.js';
import { loadHttpServerTransport } from './mcp-sdk.js';
import type { JarvisMcpServer } from './mcp-server.js';

/** The one path the HTTP server answers on. */
export const MCP_HTTP_PATH = '/mcp';

/** Options of the session table. */
export interface McpHttpSessionsOptions {
  readonly server: JarvisMcpServer;
  /** Most sessions open at once; a new one beyond it closes the least recently used. */
  readonly maxSessions: number;
  /** Check the `Host` header against loopback names (on for a loopback bind). */
  readonly checkHost: boolean;
  /** Whether a request's `Origin` header (undefined when absent) may reach the server. */
  readonly allowOrigin: (origin: string | undefined) => boolean;
}

/**
 * Routes Streamable HTTP requests to per-session SDK transports. Session mode (not stateless) so that a
 * client's `notifications/cancelled` reaches the server instance running the call it cancels.
 */
export class McpHttpSessions {
  readonly #options: McpHttpSessionsOptions;
  readonly #sessions = new Map<string, StreamableHTTPServerTransport>();

  constructor(options: McpHttpSessionsOptions) {
    this.#options = options;
  }

  /** Sessions open right now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Answers one HTTP request; never throws (failures become JSON-RPC error bodies). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const refusal = this.#refusal(req);
      if (refusal !== undefined) return sendError(res, refusal.status, refusal.message);
      const sessionId = req.headers['mcp-session-id'];
      if (typeof sessionId === 'string') return await this.#continue(sessionId, req, res);
      if (req.method !== 'POST') {
        return sendError(res, 400, 'Missing Mcp-Session-Id header; start with an initialize POST');
      }
      await this.#start(req, res);
    } catch (error) {
      if (!res.headersSent) sendError(res, 500, `Internal error: ${describeError(error)}`);
      else res.destroy();
    }
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const open = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(open.map((transport) => transport.close()));
  }

  #refusal(req: IncomingMessage): { status: number; message: string } | undefined {
    const path = (req.url ?? '').split('?')[0];
    if (path !== MCP_HTTP_PATH) {
      return { status: 404, message: `Not found: the MCP endpoint is ${MCP_HTTP_PATH}` };
    }
    if (this.#options.checkHost && !isLoopbackHostHeader(req.headers.host)) {
      return {
        status: 403,
        message: `Forbidden Host header '${req.headers.host ?? ''}': this server only answers localhost`,
      };
    }
    const origin = req.headers.origin;
    if (!this.#options.allowOrigin(origin)) {
      return {
        status: 403,
        message: `Forbidden Origin '${origin ?? ''}': this server answers pages from its own origin only; add the origin to allowedOrigins to allow it`,
      };
    }
    return undefined;
  }

  async #continue(sessionId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const transport = this.#sessions.get(sessionId);
    if (transport === undefined) {
      return sendError(res, 404, 'Session not found; start a new session with an initialize POST');
    }
    // Re-inserted so the map stays ordered from least to most recently used.
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, transport);
    await transport.handleRequest(req, res);
  }

  async #start(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Clients that vanish without a DELETE leave sessions behind; the least recently used one makes room.
    if (this.#sessions.size >= this.#options.maxSessions) {
      const [oldest] = this.#sessions.keys();
      if (oldest !== undefined) await this.#end(oldest);
    }
    const Transport = await loadHttpServerTransport();
    const transport: StreamableHTTPServerTransport = new Transport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => void this.#sessions.set(id, transport),
      onsessionclosed: (id) => this.#end(id),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    await this.#options.server.connect(transport);
    await transport.handleRequest(req, res);
    // Anything but a successful initialize leaves no session behind.
    if (transport.sessionId === undefined) await transport.close();
  }

  async #end(id: string): Promise<void> {
    const transport = this.#sessions.get(id);
    this.#sessions.delete(id);
    // After the DELETE's answer is written: closing first would cut it off.
    if (transport !== undefined) setImmediate(() => void transport.close());
  }
}

function sendError(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}
