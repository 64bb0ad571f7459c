import { realpathSync, statSync } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { describeError, JarvisError } from '../../../core/index.js';

/** Where a requested path really points: an existing file, a missing one, or one that cannot be resolved. */
export type ResolvedTarget =
  | { readonly kind: 'found'; readonly realPath: string }
  | { readonly kind: 'missing'; readonly realPath: string }
  | { readonly kind: 'error'; readonly realPath: string; readonly detail: string };

/** Expands a leading `~` or `~/` to `homeDir`; any other path is returned unchanged. */
export function expandHome(path: string, homeDir: string): string {
  if (path === '~') return homeDir;
  if (path.startsWith('~/')) return join(homeDir, path.slice(2));
  return path;
}

/** True when `target` is `dir` or lies below it; the check is separator-aware, so `/a/bc` is not inside `/a/b`. */
export function isInsideDir(target: string, dir: string): boolean {
  if (target === dir) return true;
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  return target.startsWith(prefix);
}

/** True when `target` is inside at least one of `dirs`. */
export function isInsideAny(target: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => isInsideDir(target, dir));
}

/** Longest path `file_read` accepts, in UTF-8 bytes (Linux's PATH_MAX). */
export const FILE_READ_MAX_PATH_BYTES = 4096;

/** Most components (names between separators) a path given to `file_read` may have. */
export const FILE_READ_MAX_PATH_COMPONENTS = 256;

/** Why a requested path is too long or too deep to look at, or undefined when its size is fine. */
export function pathSizeProblem(path: string): string | undefined {
  const bytes = Buffer.byteLength(path, 'utf8');
  if (bytes > FILE_READ_MAX_PATH_BYTES) {
    return `path is too long: ${bytes} bytes (at most ${FILE_READ_MAX_PATH_BYTES}).`;
  }
  let components = 0;
  for (const part of path.split(/[\\/]/)) if (part !== '') components += 1;
  if (components > FILE_READ_MAX_PATH_COMPONENTS) {
    return `path has too many components: ${components} (at most ${FILE_READ_MAX_PATH_COMPONENTS}).`;
  }
  return undefined;
}

/** Options of `resolveAllowedDirs`. */
export interface AllowedDirsOptions {
  readonly homeDir: string;
  readonly baseDir: string;
}

/**
 * Resolves the allowed directories to real paths once; throws a `JarvisError` when the list is missing or an
 * entry is bad. An empty list is accepted: the tool then reads nothing and says how to configure it.
 */
export function resolveAllowedDirs(
  dirs: readonly string[] | undefined,
  options: AllowedDirsOptions,
): readonly string[] {
  if (!Array.isArray(dirs)) {
    throw new JarvisError({
      code: 'invalid_argument',
      message:
        'FileReadTool needs allowedDirs: a list of directories it may read from (pass the current directory for the usual default)',
    });
  }
  return [...new Set(dirs.map((dir) => resolveAllowedDir(dir, options)))];
}

function resolveAllowedDir(dir: unknown, options: AllowedDirsOptions): string {
  if (typeof dir !== 'string' || dir.trim() === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `FileReadTool allowedDirs entries must be non-empty strings, got ${JSON.stringify(dir)}`,
    });
  }
  const absolute = resolve(options.baseDir, expandHome(dir, options.homeDir));
  try {
    const real = realpathSync(absolute);
    if (!statSync(real).isDirectory()) throw new Error('it is not a directory');
    return real;
  } catch (cause) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `FileReadTool allowed directory '${dir}' cannot be used: ${describeError(cause)}`,
      cause,
    });
  }
}

/**
 * Resolves an absolute path through every symbolic link. A path that does not exist is resolved as far as
 * it exists (the real parent plus the missing rest), so the caller can tell inside from outside without
 * revealing whether something outside exists. Stops walking when `signal` is aborted (the caller checks it).
 */
export async function resolveTarget(
  absolutePath: string,
  signal?: AbortSignal,
): Promise<ResolvedTarget> {
  try {
    return { kind: 'found', realPath: await realpath(absolutePath) };
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { kind: 'missing', realPath: await resolveMissing(absolutePath, signal) };
    }
    return { kind: 'error', realPath: absolutePath, detail: describeFsError(error) };
  }
}

/** The real path a missing file would have: its deepest existing ancestor, resolved, plus the rest. */
async function resolveMissing(
  absolutePath: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const reversedTail: string[] = [];
  let current = absolutePath;
  while (signal?.aborted !== true) {
    const link = await danglingLinkTarget(current);
    if (link !== undefined) return join(link, ...reversedTail.toReversed());
    const parent = dirname(current);
    if (parent === current) return absolutePath;
    reversedTail.push(basename(current));
    try {
      return join(await realpath(parent), ...reversedTail.toReversed());
    } catch {
      current = parent;
    }
  }
  return absolutePath;
}

/** Where a dangling symbolic link points (one level, resolved lexically), or undefined for anything else. */
async function danglingLinkTarget(path: string): Promise<string | undefined> {
  try {
    const stats = await lstat(path);
    if (!stats.isSymbolicLink()) return undefined;
    return resolve(dirname(path), await readlink(path));
  } catch {
    return undefined;
  }
}

/** The `code` of a Node file-system error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const FS_ERROR_TEXT: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EISDIR: 'it is a directory',
  EIO: 'input/output error',
};

/** A short description of a file-system error without the path (the caller names the path as given). */
export function describeFsError(error: unknown): string {
  const code = errorCode(error);
  const text = code === undefined ? undefined : FS_ERROR_TEXT[code];
  if (text !== undefined) return text;
  return code ?? describeError(error);
}
