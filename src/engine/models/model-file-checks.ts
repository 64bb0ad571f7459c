import { createRequire } from 'node:module';
import { ModelPullError } from './model-pull-error.js';

/** What the hub says about a file before it is downloaded. */
export interface RemoteFileFacts {
  readonly sha256: string | undefined;
  readonly sizeBytes: number | undefined;
}

/** A `fetch`-like function (injectable for tests). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Asks the hub (a HEAD on the `resolve` URL, redirect not followed) for the file's SHA-256 and size, as the
 * hub sends them in `x-linked-etag` / `ETag` and `x-linked-size`; facts the answer lacks are undefined. A server
 * that cannot be reached, refuses access (401/403: a gated model) or has no such file (404) fails the pull here,
 * before any download starts.
 */
export async function fetchRemoteFileFacts(
  url: string,
  token: string | undefined,
  fetchFn: FetchLike,
  signal: AbortSignal | undefined,
): Promise<RemoteFileFacts> {
  const headers: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  let response: Response;
  try {
    response = await fetchFn(url, {
      method: 'HEAD',
      redirect: 'manual',
      headers,
      signal: signal ?? null,
    });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new ModelPullError(
      'unreachable',
      `cannot reach ${new URL(url).origin}: ${networkReason(error)}; check the address (HF_ENDPOINT) and the connection`,
      error,
    );
  }
  refuseFailedStatus(response.status, url, token !== undefined);
  const etag = unquote(response.headers.get('x-linked-etag') ?? response.headers.get('etag'));
  const size = Number(response.headers.get('x-linked-size') ?? Number.NaN);
  return {
    sha256: etag !== undefined && SHA256_HEX.test(etag) ? etag : undefined,
    sizeBytes: Number.isSafeInteger(size) && size > 0 ? size : undefined,
  };
}

/** 401/403 (gated or private model) and 404 (no such file) end the pull with what to do. */
function refuseFailedStatus(status: number, url: string, hadToken: boolean): void {
  const where = new URL(url);
  const file = `${where.origin}${where.pathname}`;
  if (status === 401 || status === 403) {
    const advice = hadToken
      ? 'the token in HF_TOKEN has no access to it (accept the model licence on its page, or use another token)'
      : 'it is gated or private: set HF_TOKEN to a token that has access';
    throw new ModelPullError('access_denied', `${file} refused access (HTTP ${status}): ${advice}`);
  }
  if (status === 404)
    throw new ModelPullError(
      'unknown_model',
      `${file} was not found (HTTP 404): check the repository, file name and branch`,
    );
}

/** The most telling part of a `fetch` network failure (`ECONNREFUSED`, `ENOTFOUND`, …). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function unquote(value: string | null): string | undefined {
  if (value === null) return undefined;
  return value.replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

/** SHA-256 (hex) of a file, read as a stream. */
export async function sha256OfFile(path: string): Promise<string> {
  // Loaded on first use: importing the package should not load `node:crypto` and the stream classes.
  const load = createRequire(import.meta.url);
  const { createHash } = load('node:crypto') as typeof import('node:crypto');
  const { createReadStream } = load('node:fs') as typeof import('node:fs');
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Throws `disk_full` when the file system of `directory` has less than `neededBytes` available. */
export async function ensureDiskRoom(
  directory: string,
  neededBytes: number,
  statfsFn: (path: string) => Promise<{ bavail: number; bsize: number }> = (path) =>
    (
      createRequire(import.meta.url)('node:fs/promises') as typeof import('node:fs/promises')
    ).statfs(path),
): Promise<void> {
  const stats = await statfsFn(directory);
  const availableBytes = stats.bavail * stats.bsize;
  if (availableBytes >= neededBytes) return;
  throw new ModelPullError(
    'disk_full',
    `not enough disk space in ${directory}: the model needs ${formatBytes(neededBytes)} more, ${formatBytes(availableBytes)} available`,
  );
}

/** `1.2 GB`-style size for messages. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
