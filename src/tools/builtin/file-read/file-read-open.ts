import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath } from 'node:fs/promises';
import { describeFsError, errorCode, isInsideAny } from './file-read-paths.js';
import { isOnPseudoFileSystem, pseudoFileRoot } from './file-read-pseudo.js';

/** The identity and type of a file as seen before it is opened. */
export interface InspectedFile {
  readonly dev: number;
  readonly ino: number;
  readonly sizeBytes: number;
  /** `file`, `directory`, `FIFO`, `character device`, …. */
  readonly kind: string;
}

/** Why a verified read was refused. */
export type ReadRefusal =
  | { readonly ok: false; readonly reason: 'outside' }
  | { readonly ok: false; readonly reason: 'pseudo'; readonly where: string }
  | { readonly ok: false; readonly reason: 'not_regular'; readonly kind: string }
  | { readonly ok: false; readonly reason: 'too_large'; readonly sizeBytes: number }
  | { readonly ok: false; readonly reason: 'changed' }
  | { readonly ok: false; readonly reason: 'io'; readonly detail: string };

/** The outcome of a verified read: the bytes and the real path of the file that was read, or a refusal. */
export type VerifiedRead =
  | { readonly ok: true; readonly bytes: Buffer; readonly realPath: string }
  | ReadRefusal;

/** Options of `readVerifiedFile`. */
export interface VerifiedReadOptions {
  /** The resolved real path, already checked to be inside `allowedDirs`. */
  readonly realPath: string;
  /** What `inspectFile` saw; the opened file must be this same file. */
  readonly expected: InspectedFile;
  readonly allowedDirs: readonly string[];
  readonly maxBytes: number;
}

/**
 * Never blocks on a FIFO or a terminal, and never follows a symbolic link in the last component (the path is
 * already real, so a link there means it was swapped in after the check).
 */
const OPEN_FLAGS =
  constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW;

/** Looks at a file without opening it (lstat), so a FIFO or a device is recognised before anything blocks. */
export async function inspectFile(realPath: string): Promise<InspectedFile | ReadRefusal> {
  try {
    const stats = await lstat(realPath);
    return { dev: stats.dev, ino: stats.ino, sizeBytes: stats.size, kind: describeKind(stats) };
  } catch (error) {
    return { ok: false, reason: 'io', detail: describeFsError(error) };
  }
}

/**
 * Opens a file and proves the opened descriptor is the regular file that was inspected and that its real
 * path (read back from `/proc/self/fd`) is inside the allowed directories, then reads at most `maxBytes`,
 * counting the bytes actually read rather than trusting the size the file system reports.
 */
export async function readVerifiedFile(options: VerifiedReadOptions): Promise<VerifiedRead> {
  let handle: FileHandle;
  try {
    handle = await open(options.realPath, OPEN_FLAGS);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') return { ok: false, reason: 'changed' };
    return { ok: false, reason: 'io', detail: describeFsError(error) };
  }
  try {
    return await readOpened(handle, options);
  } catch (error) {
    return { ok: false, reason: 'io', detail: describeFsError(error) };
  } finally {
    await handle.close();
  }
}

async function readOpened(handle: FileHandle, options: VerifiedReadOptions): Promise<VerifiedRead> {
  const stats = await handle.stat();
  if (!stats.isFile()) return { ok: false, reason: 'not_regular', kind: describeKind(stats) };
  if (stats.dev !== options.expected.dev || stats.ino !== options.expected.ino) {
    return { ok: false, reason: 'changed' };
  }
  const openedPath = await pathOfDescriptor(handle, options.realPath);
  if (!isInsideAny(openedPath, options.allowedDirs)) return { ok: false, reason: 'outside' };
  const pseudo = await pseudoPlaceOfDescriptor(handle, openedPath);
  if (pseudo !== undefined) return { ok: false, reason: 'pseudo', where: pseudo };
  if (stats.size > options.maxBytes) {
    return { ok: false, reason: 'too_large', sizeBytes: stats.size };
  }
  const bytes = await readAtMost(handle, options.maxBytes + 1);
  if (bytes.length > options.maxBytes) {
    return { ok: false, reason: 'too_large', sizeBytes: Math.max(bytes.length, stats.size) };
  }
  return { ok: true, bytes, realPath: openedPath };
}

/**
 * The real path of what the descriptor refers to. Linux tells it through `/proc/self/fd`; elsewhere the path
 * is resolved again, which narrows but cannot close the window for a swap (the dev/ino check still applies).
 */
async function pathOfDescriptor(handle: FileHandle, realPath: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return realpath(realPath);
  }
}

/** Where the opened file is when it is a system pseudo-file (by its path or its file system), or undefined. */
async function pseudoPlaceOfDescriptor(
  handle: FileHandle,
  openedPath: string,
): Promise<string | undefined> {
  const root = pseudoFileRoot(openedPath);
  if (root !== undefined) return `under ${root}`;
  const onPseudo = await isOnPseudoFileSystem(`/proc/self/fd/${handle.fd}`);
  return onPseudo ? 'on a kernel file system' : undefined;
}

/** Reads until end of file or `limit` bytes, whichever comes first. */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, null);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function describeKind(stats: Stats): string {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  if (stats.isSocket()) return 'socket';
  if (stats.isSymbolicLink()) return 'symbolic link';
  return 'special file';
}
