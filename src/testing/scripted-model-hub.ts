import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One file the scripted hub serves at `/<owner>/<repo>/resolve/<revision>/<path>`. */
export interface ScriptedHubFile {
  /** `owner/repo`, as in `hf:owner/repo/file.gguf`. */
  readonly repository: string;
  /** Path of the file inside the repository. */
  readonly path: string;
  /** The bytes served. */
  readonly content: Uint8Array;
  /** SHA-256 sent in `ETag` / `x-linked-etag` (default: the real one; set it to lie on purpose). */
  readonly advertisedSha256?: string;
  /** Quantization tags (`Q8_0`, …) the `/v2/<repo>/manifests/<tag>` endpoint resolves to this file. */
  readonly quantizations?: readonly string[];
}

/** Options of `startScriptedModelHub`. */
export interface ScriptedModelHubOptions {
  readonly files: readonly ScriptedHubFile[];
  /** Answer `resolve/` with a 302 to a separate content path, as the real hub does (default true). */
  readonly redirect?: boolean;
  /**
   * Redirect `resolve/` to a second listener on another port (another origin, as the real hub's CDN with its signed
   * URLs), which serves the `/cdn/` paths without asking for a token (default false: the same origin).
   */
  readonly crossOriginRedirect?: boolean;
  /**
   * Limit the bytes of file bodies sent per second, over all connections together (a link of that speed);
   * default unlimited.
   */
  readonly bytesPerSecond?: number;
  /** Serve files only to `Authorization: Bearer <token>` (else 401, as the hub answers for a gated model). */
  readonly requiredToken?: string;
}

/** One request the hub received. */
export interface HubRequest {
  readonly method: string;
  /** The origin that received it (`url` or `cdnUrl` without the trailing slash). */
  readonly origin: string;
  readonly path: string;
  /** The `Range` header, if any. */
  readonly range: string | undefined;
  /** The `Authorization` header, if any. */
  readonly authorization: string | undefined;
}

/** A running scripted model hub; close it with `close()`. */
export interface ScriptedModelHub {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:1234/` (what `HF_ENDPOINT` would be). */
  readonly url: string;
  /** Base URL `resolve/` redirects to: `url`, or the second listener's with `crossOriginRedirect`. */
  readonly cdnUrl: string;
  /** Every request (to both listeners), in order. */
  readonly requests: readonly HubRequest[];
  /**
   * Ranged GET requests for a file's bytes (after the redirect): the transfers a downloader makes, not its
   * size probe (ipull first sends a plain GET that it drops after the headers).
   */
  rangedGets(path: string): number;
  /** The body of the next ranged GET is cut (socket destroyed) after `afterBytes` bytes, once. */
  cutNextBody(afterBytes: number): void;
  /** The next `count` ranged GETs are answered 503 (a busy server the downloader retries). */
  refuseNextRangedGets(count: number): void;
  /**
   * From now on, bodies of ranged GETs send `afterBytes` bytes and then nothing more, holding the connection open
   * (a stalled server); `undefined` serves them whole again.
   */
  stallBodies(afterBytes: number | undefined): void;
  /** Stops the server and ends open connections. */
  close(): Promise<void>;
}

/** Starts a fake Hugging Face hub on 127.0.0.1 serving `resolve/` (redirect, HEAD, Range, SHA-256 headers). */
export async function startScriptedModelHub(
  options: ScriptedModelHubOptions,
): Promise<ScriptedModelHub> {
  const hub = new Hub(options);
  await hub.listen();
  return hub;
}

interface ServedFile extends ScriptedHubFile {
  readonly sha256: string;
}

class Hub implements ScriptedModelHub {
  url = '';
  cdnUrl = '';
  readonly requests: HubRequest[] = [];
  readonly #files: ServedFile[];
  readonly #redirect: boolean;
  readonly #server: Server;
  /** The second listener with `crossOriginRedirect`. */
  readonly #cdnServer: Server | undefined;
  readonly #requiredToken: string | undefined;
  readonly #bytesPerSecond: number | undefined;
  /** When the shared link is free again (ms, `performance.now()`), for `bytesPerSecond`. */
  #linkFreeAtMs = 0;
  #cutAfterBytes: number | undefined;
  #rangedGetsToRefuse = 0;
  #stallAfterBytes: number | undefined;

  constructor(options: ScriptedModelHubOptions) {
    this.#files = options.files.map((file) => ({
      ...file,
      sha256: file.advertisedSha256 ?? createHash('sha256').update(file.content).digest('hex'),
    }));
    this.#redirect = options.redirect ?? true;
    this.#requiredToken = options.requiredToken;
    this.#bytesPerSecond = options.bytesPerSecond;
    this.#server = createServer((request, response) => this.#handle(request, response));
    if (options.crossOriginRedirect === true)
      this.#cdnServer = createServer((request, response) => this.#handleCdn(request, response));
  }

  async listen(): Promise<void> {
    this.url = await listenOnLoopback(this.#server);
    this.cdnUrl =
      this.#cdnServer === undefined ? this.url : await listenOnLoopback(this.#cdnServer);
  }

  rangedGets(path: string): number {
    return this.requests.filter(
      (request) =>
        request.method === 'GET' &&
        request.range !== undefined &&
        request.path.startsWith('/cdn/') === this.#redirect &&
        request.path.endsWith(`/${path}`),
    ).length;
  }

  cutNextBody(afterBytes: number): void {
    this.#cutAfterBytes = afterBytes;
  }

  refuseNextRangedGets(count: number): void {
    this.#rangedGetsToRefuse = count;
  }

  stallBodies(afterBytes: number | undefined): void {
    this.#stallAfterBytes = afterBytes;
  }

  async close(): Promise<void> {
    for (const server of [this.#server, this.#cdnServer]) {
      if (server === undefined) continue;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** Decodes the request's path and logs the request as received by `baseUrl`. */
  #record(request: IncomingMessage, baseUrl: string): string {
    const path = decodeURIComponent(new URL(request.url ?? '/', baseUrl).pathname);
    this.requests.push({
      method: request.method ?? 'GET',
      origin: new URL(baseUrl).origin,
      path,
      range: request.headers.range,
      authorization: request.headers.authorization,
    });
    return path;
  }

  /** The CDN listener: `/cdn/` paths only, and no token asked, as a signed URL needs none. */
  #handleCdn(request: IncomingMessage, response: ServerResponse): void {
    const cdn = /^\/cdn\/([^/]+\/[^/]+)\/([^/]+)\/(.+)$/.exec(this.#record(request, this.cdnUrl));
    const file = this.#files.find((f) => f.repository === cdn?.[1] && f.path === cdn?.[3]);
    if (file === undefined) return void end(response, 404, 'Entry not found');
    this.#sendContent(request, response, file);
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const path = this.#record(request, this.url);
    if (
      this.#requiredToken !== undefined &&
      request.headers.authorization !== `Bearer ${this.#requiredToken}`
    )
      return void end(response, 401, 'Access to this model is restricted', 'GatedRepo');
    const manifest = /^\/v2\/([^/]+\/[^/]+)\/manifests\/([^/]+)$/.exec(path);
    if (manifest !== null)
      return void this.#sendManifest(response, manifest[1] ?? '', manifest[2] ?? '');
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const cdn = /^\/cdn\/([^/]+\/[^/]+)\/([^/]+)\/(.+)$/.exec(path);
    const match = resolve ?? cdn;
    const file = this.#files.find((f) => f.repository === match?.[1] && f.path === match?.[3]);
    if (match === null || file === undefined) return void end(response, 404, 'Entry not found');
    if (resolve !== null && this.#redirect)
      return void this.#sendRedirect(response, file, match[2] ?? '');
    this.#sendContent(request, response, file);
  }

  #sendManifest(response: ServerResponse, repository: string, tag: string): void {
    const file = this.#files.find(
      (f) =>
        f.repository === repository &&
        (f.quantizations ?? []).some((q) => q.toLowerCase() === tag.toLowerCase()),
    );
    if (file === undefined) return void end(response, 404, 'Entry not found');
    const body = JSON.stringify({ ggufFile: { rfilename: file.path, size: file.content.length } });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  }

  #sendRedirect(response: ServerResponse, file: ServedFile, revision: string): void {
    response.writeHead(302, {
      // Relative on the same origin; absolute to the second listener otherwise.
      location: new URL(`cdn/${file.repository}/${revision}/${file.path}`, this.cdnUrl).href,
      ...hubHeaders(file),
      'content-length': '0',
    });
    response.end();
  }

  #sendContent(request: IncomingMessage, response: ServerResponse, file: ServedFile): void {
    const total = file.content.length;
    const range = parseRange(request.headers.range, total);
    if (range === 'invalid') {
      response.writeHead(416, { 'content-range': `bytes */${total}` });
      return void response.end();
    }
    if (range !== undefined && request.method === 'GET' && this.#rangedGetsToRefuse > 0) {
      this.#rangedGetsToRefuse -= 1;
      return void end(response, 503, 'Service unavailable', 'ServiceUnavailable');
    }
    const [start, endByte] = range ?? [0, total - 1];
    const headers: Record<string, string> = {
      ...hubHeaders(file),
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
      'content-length': String(endByte - start + 1),
      'content-disposition': `attachment; filename="${file.path.split('/').pop() ?? ''}"`,
    };
    if (range !== undefined) headers['content-range'] = `bytes ${start}-${endByte}/${total}`;
    response.writeHead(range === undefined ? 200 : 206, headers);
    if (request.method === 'HEAD') return void response.end();
    this.#writeBody(response, file.content.subarray(start, endByte + 1), range !== undefined);
  }

  /** Sends `body` in slices no faster than the shared link allows. */
  #writePaced(response: ServerResponse, body: Uint8Array, bytesPerSecond: number): void {
    let offset = 0;
    const next = (): void => {
      if (response.destroyed) return;
      if (offset >= body.length) return void response.end();
      const slice = body.subarray(offset, offset + PACED_SLICE_BYTES);
      offset += slice.length;
      const now = performance.now();
      const startMs = Math.max(now, this.#linkFreeAtMs);
      this.#linkFreeAtMs = startMs + (slice.length / bytesPerSecond) * 1000;
      setTimeout(() => response.write(slice, next), startMs - now);
    };
    next();
  }

  #writeBody(response: ServerResponse, body: Uint8Array, ranged: boolean): void {
    const stall = this.#stallAfterBytes;
    if (ranged && stall !== undefined && stall < body.length)
      return void response.write(body.subarray(0, stall));
    const cut = this.#cutAfterBytes;
    if (!ranged || cut === undefined || cut >= body.length) {
      if (this.#bytesPerSecond === undefined) return void response.end(body);
      return void this.#writePaced(response, body, this.#bytesPerSecond);
    }
    this.#cutAfterBytes = undefined;
    response.write(body.subarray(0, cut), () => {
      setImmediate(() => response.socket?.destroy());
    });
  }
}

const PACED_SLICE_BYTES = 1024 * 1024;

/** Listens on a free port of 127.0.0.1 and returns the base URL, with a trailing slash. */
async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}/`;
}

function hubHeaders(file: ServedFile): Record<string, string> {
  return {
    etag: `"${file.sha256}"`,
    'x-linked-etag': `"${file.sha256}"`,
    'x-linked-size': String(file.content.length),
    'x-repo-commit': '0000000000000000000000000000000000000000',
  };
}

function end(
  response: ServerResponse,
  status: number,
  message: string,
  errorCode = 'EntryNotFound',
): void {
  response.writeHead(status, { 'content-type': 'text/plain', 'x-error-code': errorCode });
  response.end(message);
}

/** `[start, end]` (inclusive) of a single `bytes=` range, undefined without one, `invalid` when unsatisfiable. */
function parseRange(
  header: string | undefined,
  total: number,
): [number, number] | undefined | 'invalid' {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return 'invalid';
  const start = first === '' ? Math.max(0, total - Number(last)) : Number(first);
  const endByte = first !== '' && last !== '' ? Math.min(Number(last), total - 1) : total - 1;
  return start > endByte || start >= total ? 'invalid' : [start, endByte];
}
