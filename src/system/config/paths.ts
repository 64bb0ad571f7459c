import { isAbsolute, join, resolve } from 'node:path';

/** The folders relative paths of a config file are resolved against. */
export interface PathContext {
  /** The OpenJarvis home folder: relative database and model paths. */
  readonly home: string;
  /** The current directory: relative `allowed_dirs`. */
  readonly cwd: string;
  /** The user's home folder, for `~`. */
  readonly homeDir: string;
  /** The config file's folder: relative `imports`; undefined when no file was read. */
  readonly configDir: string | undefined;
}

/** Expands a leading `~` (`~` or `~/…`) to `homeDir`; other paths are returned as they are. */
export function expandHome(path: string, homeDir: string): string {
  if (path === '~') return homeDir;
  if (path.startsWith('~/') || path.startsWith('~\\')) return join(homeDir, path.slice(2));
  return path;
}

/** An absolute path: `~` expanded, relative paths resolved against `base`. */
export function resolvePath(path: string, base: string, homeDir: string): string {
  const expanded = expandHome(path, homeDir);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
}
