import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { JarvisError } from '../../../core/index.js';
import type { ResolvedAddress } from './ssrf-guard.js';

/**
 * `node:http`, `node:https` (with TLS) and `node:zlib`, loaded on the first request that needs them: importing the
 * package should not pay for them.
 */
const load = <T>(id: string): T => createRequire(import.meta.url)(id) as T;

/** Largest response body read: 2 MiB (after decompression). */
export const WEB_FETCH_MAX_BYTES = 2 * 1024 * 1024;

/** One HTTP request; redirects are not followed (the caller decides, hop by hop). */
export interface HttpRequest {
  readonly url: URL;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Connect to this address instead of resolving the host name again, so what was checked is what is
   * reached; the host name is still sent as the Host header and as TLS SNI.
   */
  readonly address?: ResolvedAddress;
  readonly signal: AbortSignal;
  /** The body is cut (and `truncated` set) after this many bytes; default 2 MiB. */
  readonly maxBytes?: number;
}

/** The answer to one request. */
export interface HttpResponse {
  readonly status: number;
  /** Lower-case header names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** True when the body was longer than `maxBytes` and was cut. */
  readonly truncated: boolean;
}

/** Sends one request with `node:http`/`node:https` (no connection reuse) and reads a capped, decompressed body. */
export function sendHttpRequest(request: HttpRequest): Promise<HttpResponse> {
  const client =
    request.url.protocol === 'https:'
      ? load<typeof import('node:https')>('node:https')
      : load<typeof import('node:http')>('node:http');
  const maxBytes = request.maxBytes ?? WEB_FETCH_MAX_BYTES;
  return new Promise<HttpResponse>((resolve, reject) => {
    const outgoing = client.request(
      request.url,
      {
        method: request.method ?? 'GET',
        headers: { 'accept-encoding': 'gzip, deflate, br', ...request.headers },
        agent: false,
        signal: request.signal,
        ...(request.address === undefined ? {} : { lookup: pinnedLookup(request.address) }),
      },
      (response) => {
        readBody(response, maxBytes).then(
          ({ body, truncated }) =>
            resolve({
              status: response.statusCode ?? 0,
              headers: flatHeaders(response),
              body,
              truncated,
            }),
          reject,
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** A DNS lookup that always answers with the already-checked address (both callback shapes Node uses). */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((
    _hostname: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ) => {
    if (options?.all === true) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Reads at most `maxBytes` of the (decompressed) body, then stops the download. */
function readBody(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  let stream: Readable;
  try {
    stream = decoded(response);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (truncated: boolean): void => {
      if (settled) return;
      settled = true;
      resolve({ body: Buffer.concat(chunks).subarray(0, maxBytes), truncated });
    };
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= maxBytes) return;
      finish(true);
      stopDownload(response, stream);
    });
    stream.on('end', () => finish(false));
    stream.on('error', fail);
    response.on('error', fail);
    response.on('aborted', () =>
      fail(new Error('the connection was closed before the body ended')),
    );
  });
}

/** Stops reading a body: closes the connection and the decoder in front of it. */
function stopDownload(response: IncomingMessage, stream: Readable): void {
  response.destroy();
  if (stream !== response) stream.destroy();
}

/** The body stream with `Content-Encoding` undone; an unknown encoding is an error. */
function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const zlib = (): typeof import('node:zlib') => load('node:zlib');
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib().createGunzip()
      : encoding === 'deflate'
        ? zlib().createInflate()
        : encoding === 'br'
          ? zlib().createBrotliDecompress()
          : undefined;
  if (decoder === undefined) {
    if (encoding === 'identity' || encoding === '') return response;
    response.destroy();
    throw new JarvisError({
      code: 'http_unsupported_encoding',
      message: `the server used an unsupported content encoding (${encoding})`,
    });
  }
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}
