import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { statfs } from 'node:fs/promises';
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
 * hub sends them in `x-linked-etag` / `ETag` and `x-linked-size`; unknown facts are undefined, never an error.
 */
export async function fetchRemoteFileFacts(
  url: string,
  token: string | undefined,
  fetchFn: FetchLike,
  signal: AbortSignal | undefined,
): Promise<RemoteFileFacts> {
  try {
    const headers: Record<string, string> =
      token === undefined ? {} : { authorization: `Bearer ${token}` };
    const response = await fetchFn(url, {
      method: 'HEAD',
      redirect: 'manual',
      headers,
      signal: signal ?? null,
    });
    const etag = unquote(response.headers.get('x-linked-etag') ?? response.headers.get('etag'));
    const size = Number(response.headers.get('x-linked-size') ?? Number.NaN);
    return {
      sha256: etag !== undefined && SHA256_HEX.test(etag) ? etag : undefined,
      sizeBytes: Number.isSafeInteger(size) && size > 0 ? size : undefined,
    };
  } catch {
    return { sha256: undefined, sizeBytes: undefined };
  }
}

function unquote(value: string | null): string | undefined {
  if (value === null) return undefined;
  return value.replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

/** SHA-256 (hex) of a file, read as a stream. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Throws `disk_full` when the file system of `directory` has less than `neededBytes` available. */
export async function ensureDiskRoom(
  directory: string,
  neededBytes: number,
  statfsFn: (path: string) => Promise<{ bavail: number; bsize: number }> = statfs,
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
