import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { describeError, JarvisError } from '../../core/index.js';
import type { ConfigLocation } from './load.js';

/** The largest config file read (1 MiB): a config is a few kilobytes; anything bigger is the wrong file. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads the config file at `location` as UTF-8 text; undefined when the default file does not exist. Only a
 * regular file of at most `MAX_CONFIG_BYTES` is read: the path is checked with `stat` before it is opened (a FIFO
 * without a writer or a device would block or never end), and again on the opened handle. Throws
 * `config_not_found` for a named file that does not exist and `config_unreadable` for anything else.
 */
export async function readConfigFile(location: ConfigLocation): Promise<string | undefined> {
  let info: Stats;
  try {
    info = await stat(location.path);
  } catch (error) {
    if (isMissing(error) && location.namedBy === undefined) return undefined;
    throw failure(location, error);
  }
  checkRegularFile(location, info);
  try {
    return await readCapped(location);
  } catch (error) {
    if (JarvisError.isInstance(error)) throw error;
    throw failure(location, error);
  }
}

/** Throws `config_unreadable` naming what the path is when it is not a regular file of an allowed size. */
function checkRegularFile(location: ConfigLocation, info: Stats): void {
  const kind = nonRegularKind(info);
  if (kind !== undefined) throw unusable(location, `is ${kind}, not a regular file`);
  if (info.size > MAX_CONFIG_BYTES) {
    throw unusable(location, `is ${info.size} bytes; config files are at most 1 MiB`);
  }
}

function nonRegularKind(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * Opens without blocking (a path swapped for a FIFO after the `stat` does not hang the open), checks the handle
 * is still a regular file, and reads at most one byte more than the cap (`/proc` files report size 0).
 */
async function readCapped(location: ConfigLocation): Promise<string> {
  const handle = await open(location.path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    checkRegularFile(location, await handle.stat());
    const chunks = await readChunks(handle, MAX_CONFIG_BYTES + 1);
    const bytes = Buffer.concat(chunks);
    if (bytes.length > MAX_CONFIG_BYTES) {
      throw unusable(location, 'is more than 1 MiB; config files are at most 1 MiB');
    }
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Reads until the end of the file or until `limitBytes` were read. */
async function readChunks(handle: FileHandle, limitBytes: number): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limitBytes) {
    const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, limitBytes - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
  }
  return chunks;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Who named the file, for messages: `(given with --config)`, `(named by OPENJARVIS_CONFIG)` or nothing. */
function namedBy(location: ConfigLocation): string {
  if (location.namedBy === 'option') return ' (given with --config)';
  if (location.namedBy === 'OPENJARVIS_CONFIG') return ' (named by OPENJARVIS_CONFIG)';
  return '';
}

function failure(location: ConfigLocation, error: unknown): JarvisError {
  if (isMissing(error)) {
    return new JarvisError({
      code: 'config_not_found',
      message: `Config file ${location.path}${namedBy(location)} does not exist; correct the path, or create the file with \`jarvis init\``,
      cause: error,
    });
  }
  return new JarvisError({
    code: 'config_unreadable',
    message: `Cannot read config file ${location.path}${namedBy(location)}: ${describeError(error)}; make it a readable TOML file`,
    cause: error,
  });
}

function unusable(location: ConfigLocation, what: string): JarvisError {
  return new JarvisError({
    code: 'config_unreadable',
    message: `Config file ${location.path}${namedBy(location)} ${what}; give the path of a TOML file (\`jarvis init\` writes one)`,
  });
}
