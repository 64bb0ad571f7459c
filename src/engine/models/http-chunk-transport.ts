import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { rawFileEngineOf } from './downloader-hooks.js';

/** ipull's fetch stream for one slice of the file: its state, options and steps this transport uses. */
interface SliceFetchStream {
  options: { readonly headers?: Readonly<Record<string, string>> };
  readonly state: { readonly url: string; readonly rangeSupport?: boolean };
  readonly _startSize: number;
  readonly _endSize: number;
  appendToURL(url: string): string;
  chunkGenerator(
    callback: unknown,
    next: () => Promise<IteratorResult<Uint8Array>>,
  ): Promise<unknown>;
  on(event: 'aborted', listener: () => void): unknown;
  fetchWithoutRetryChunks(callback: unknown): Promise<unknown>;
}

/** ipull's fetch stream of the whole download, which makes one per slice. */
interface RootFetchStream {
  withSubState(state: unknown): unknown;
}

/** Keep-alive connection pools of one pull (each chunk of the file is one ranged GET). */
export class ChunkAgents {
  readonly http = new HttpAgent({ keepAlive: true });
  readonly https = new HttpsAgent({ keepAlive: true });

  /** Closes every connection of the pull. */
  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

/** The length a `Content-Range: bytes a-b/size` header gives, as ipull reads it. */
function rangeLength(header: string | undefined): number | undefined {
  const match = /^bytes (\d+)-(\d+)\/(?:\d+|\*)$/.exec(header?.trim() ?? '');
  return match === null ? undefined : Number(match[2]) - Number(match[1]) + 1;
}

/** Sends one GET and resolves with the response head. */
function get(
  url: URL,
  headers: Record<string, string>,
  agents: ChunkAgents,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const https = url.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { headers, signal, agent: https ? agents.https : agents.http }, resolve);
    req.once('error', reject);
    req.end();
  });
}

/**
 * ipull's `fetchWithoutRetryChunks` (one GET of a slice, its bytes handed to ipull's chunk splitter) over
 * `node:http`. A response that is not a plain success of the expected length (an error status, a redirect, a
 * length ipull would refuse) is dropped and the slice fetched again with ipull's own code, so that ipull's errors,
 * retries and redirect handling stay exactly its own.
 */
function fetchSliceOverHttp(
  original: SliceFetchStream['fetchWithoutRetryChunks'],
  agents: ChunkAgents,
) {
  return async function fetchWithoutRetryChunks(
    this: SliceFetchStream,
    callback: unknown,
  ): Promise<unknown> {
    // The same headers ipull's fetch sends, to the same URL (`keepAuthorizationOnOrigin` has taken the token out
    // of them for a slice on another origin).
    const headers: Record<string, string> = { accept: '*/*', ...this.options.headers };
    if (this.state.rangeSupport === true)
      headers.range = `bytes=${this._startSize}-${this._endSize - 1}`;
    const url = new URL(this.appendToURL(this.state.url));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return original.call(this, callback);
    // Listening before the request (ipull's fetch listens once the answer is in) also ends a GET left unanswered.
    const controller = new AbortController();
    this.on('aborted', () => controller.abort());
    const response = await get(url, headers, agents, controller.signal);
    const status = response.statusCode ?? 0;
    const length =
      rangeLength(response.headers['content-range']) ?? Number(response.headers['content-length']);
    const expected = this._endSize - this._startSize;
    if (
      status < 200 ||
      status >= 300 ||
      (this.state.rangeSupport === true && length !== expected)
    ) {
      response.destroy();
      return original.call(this, callback);
    }
    const chunks = response[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
    return this.chunkGenerator(callback, () => chunks.next());
  };
}

/**
 * Has ipull fetch the file's slices over `node:http` instead of the global `fetch` (its only transport in Node;
 * node-llama-cpp passes no option for it). Everything else stays ipull's: the ranges, the chunk splitting, the
 * retries, pause and cancel, resume and progress. `fetch` turns every 64 kB network read into a web-stream read
 * (a promise and a copy per read); a `node:http` response is read as the socket delivers it, which halved the
 * CPU time of a 256 MiB pull and doubled its rate on loopback. Returns false when the downloader is not shaped as
 * expected (ipull keeps `fetch`).
 */
export function fetchChunksOverHttp(downloader: unknown, agents: ChunkAgents): boolean {
  const root = rootFetchStreamOf(downloader);
  const prototype = Object.getPrototypeOf(root ?? {}) as Partial<SliceFetchStream> | null;
  if (
    typeof root?.withSubState !== 'function' ||
    typeof prototype?.fetchWithoutRetryChunks !== 'function' ||
    typeof prototype.chunkGenerator !== 'function' ||
    typeof prototype.appendToURL !== 'function'
  )
    return false;
  const slice = fetchSliceOverHttp(prototype.fetchWithoutRetryChunks, agents);
  return onEachSliceStream(downloader, (stream) => {
    stream.fetchWithoutRetryChunks = slice;
  });
}

/**
 * Has `visit` adjust every slice stream ipull's fetch stream makes (ipull makes one per slice with
 * `withSubState`), before the stream is used. Returns false when the downloader is not shaped as expected.
 */
function onEachSliceStream(
  downloader: unknown,
  visit: (stream: Partial<SliceFetchStream>) => void,
): boolean {
  const root = rootFetchStreamOf(downloader);
  if (typeof root?.withSubState !== 'function') return false;
  const withSubState = root.withSubState.bind(root);
  root.withSubState = (state: unknown) => {
    const stream = withSubState(state) as Partial<SliceFetchStream>;
    visit(stream);
    return stream;
  };
  return true;
}

/** ipull's fetch stream of the whole download (in its per-file engine's options), unchecked. */
function rootFetchStreamOf(downloader: unknown): Partial<RootFetchStream> | undefined {
  const engine = rawFileEngineOf(downloader) as
    | { options?: { fetchStream?: unknown } }
    | null
    | undefined;
  return engine?.options?.fetchStream as Partial<RootFetchStream> | undefined;
}

/** `headers` without `Authorization` (any case). */
function withoutAuthorization(
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
  );
}

/**
 * Keeps the `Authorization` header (the Hugging Face token) off every slice GET whose URL is not on `origin`.
 * ipull asks for the file's info once, following the hub's redirect, and then fetches every slice straight from
 * the redirected URL (on the real hub a CDN host with a signed URL, which needs no token) with the same request
 * headers, token included; Node's `fetch` drops the header only on the redirect it follows itself. Each slice
 * stream gets its own headers here, which both this module's `node:http` GET and ipull's own fetch (its fallback
 * and retries) read. Returns false when the downloader is not shaped as expected (nothing changed).
 */
export function keepAuthorizationOnOrigin(downloader: unknown, origin: string): boolean {
  return onEachSliceStream(downloader, (stream) => {
    const headers = stream.options?.headers;
    if (headers !== undefined && !isOnOrigin(stream.state?.url, origin))
      stream.options = { ...stream.options, headers: withoutAuthorization(headers) };
  });
}

/** Whether `url` is on `origin`; a missing or unreadable URL is not. */
function isOnOrigin(url: string | undefined, origin: string): boolean {
  try {
    return url !== undefined && new URL(url).origin === origin;
  } catch {
    return false;
  }
}
