import type {
  ClientRequest,
  Agent as HttpAgent,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  RequestOptions,
} from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { LinkedList, type ListLinks } from '../../core/index.js';
import type { AbortHook } from './http-timeouts.js';

/** A response whose status line and headers have arrived; its body is still to be read (or destroyed). */
export interface TransportResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: IncomingMessage;
}

/** One request on a transport: the full path, the headers, an optional text body and what aborts it. */
export interface TransportRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: OutgoingHttpHeaders;
  readonly body: string | null;
  readonly abort: AbortHook;
}

/** Options of an `HttpTransport`. */
export interface HttpTransportOptions {
  /** Most connections open to the origin at once. */
  readonly connections: number;
  /** Longest wait for a new connection to open. */
  readonly connectTimeoutMs: number;
}

type RequestFunction = (options: RequestOptions) => ClientRequest;

/**
 * A keep-alive connection pool to one origin over `node:http` (or `node:https`, loaded only for an https
 * origin): the parser is Node's own, so a process that talks to a model server loads no HTTP library of its
 * own. Requests are aborted by their signal; `destroy()` ends every connection and every request in flight.
 */
export class HttpTransport {
  readonly #agent: HttpAgent;
  readonly #request: RequestFunction;
  readonly #target: {
    readonly hostname: string;
    readonly port: number | undefined;
  };
  readonly #connectTimeoutMs: number;
  /**
   * Requests not closed yet, with their answer once it began: a `LinkedList` rather than a `Map`. A Map's
   * table, rehashed as requests come and go, keeps its old tables' entries (for its iterators); once such a
   * table is in the old generation, every request it saw (and all its run reaches) outlived the
   * young-generation collections until a full one: with 50 runs in flight, 2 MB promoted per scavenge.
   */
  readonly #inFlight = new LinkedList<InFlight>();

  constructor(origin: URL, options: HttpTransportOptions) {
    const agentOptions = { keepAlive: true, maxSockets: options.connections };
    // `node:http` (or `node:https`) is loaded by the first transport: importing the package should not load
    // the HTTP stack.
    const client = createRequire(import.meta.url)(
      origin.protocol === 'https:' ? 'node:https' : 'node:http',
    ) as typeof import('node:http');
    this.#agent = new client.Agent(agentOptions);
    this.#request = client.request;
    this.#target = {
      // An IPv6 literal is written in brackets in a URL, and without them to the socket.
      hostname: origin.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: origin.port === '' ? undefined : Number(origin.port),
    };
    this.#connectTimeoutMs = options.connectTimeoutMs;
  }

  /** Sends a request and resolves once the answer's status line and headers have arrived. */
  send(request: TransportRequest): Promise<TransportResponse> {
    return new Promise((resolve, reject) => {
      const { abort, body } = request;
      const target = this.#target;
      // No content-length of our own: `end(body)` on a request whose headers are not sent yet sets it.
      // No `protocol`: the request function is the origin's own module's, whose default is that protocol. node:http
      // copies these options three times per request, twice into dictionary-mode objects to which it adds keys of
      // its own (`host`, `servername`): with one key more, the agent's copy grew its table (1.7 KB per agent run).
      const req = this.#request({
        hostname: target.hostname,
        port: target.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent: this.#agent,
      });
      const entry = this.#add(req);
      // Each of these is emitted once per request: plain listeners (a `once` wrapper costs a closure each).
      req.on('close', () => {
        abort.onAbort(undefined);
        this.#remove(entry);
      });
      req.on('socket', (socket) => {
        if (socket.connecting) this.#limitConnect(req, socket);
      });
      req.on('response', (res) => {
        // Its reader sees every error through its own listeners; none may go unhandled when nobody reads.
        res.on('error', ignore);
        if (entry.listed) entry.response = res;
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      // Kept for the request's whole life: an error after the answer began also reaches its body.
      req.on('error', reject);
      // The request fails with the abort's own reason, as the caller gave it (at once when already aborted).
      abort.onAbort((reason) => req.destroy(reason as Error));
      if (!req.destroyed) req.end(body ?? undefined);
    });
  }

  /** Closes every connection; requests in flight fail. */
  destroy(): void {
    // Oldest first; a request sent meanwhile (by a listener) is in the list too and ends as well.
    for (let entry = this.#inFlight.first; entry !== undefined; entry = this.#inFlight.first) {
      const { req, response } = entry;
      this.#remove(entry);
      // A body being read ends early (its reader sees a premature close); a request waiting fails.
      response?.destroy();
      req.destroy(closedError());
    }
    this.#agent.destroy();
  }

  #add(req: ClientRequest): InFlight {
    const entry: InFlight = {
      req,
      response: undefined,
      listed: true,
      previous: undefined,
      next: undefined,
    };
    this.#inFlight.push(entry);
    return entry;
  }

  /** Takes `entry` out of the list (once) and drops its links, so that it holds no other request. */
  #remove(entry: InFlight): void {
    if (!entry.listed) return;
    entry.listed = false;
    this.#inFlight.remove(entry);
    entry.response = undefined;
  }

  #limitConnect(req: ClientRequest, socket: Socket): void {
    const timer = setTimeout(() => req.destroy(connectTimeoutError()), this.#connectTimeoutMs);
    const stop = () => clearTimeout(timer);
    socket.once('connect', stop);
    req.once('close', stop);
  }
}

/** A request in flight, in its transport's list. */
interface InFlight extends ListLinks<InFlight> {
  readonly req: ClientRequest;
  /** Its answer, once it began. */
  response: IncomingMessage | undefined;
  /** Whether it is still in the list (it leaves once, when it closes or the transport is destroyed). */
  listed: boolean;
}

function ignore(): void {
  // The error reaches the body's reader, if any, through its iterator.
}

function connectTimeoutError(): Error {
  return Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' });
}

function closedError(): Error {
  return Object.assign(new Error('the client was closed'), { code: 'ECONNABORTED' });
}
