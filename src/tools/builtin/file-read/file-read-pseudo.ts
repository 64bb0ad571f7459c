import { statfs } from 'node:fs/promises';
import { isInsideDir } from './file-read-paths.js';

/** The system pseudo-file trees `file_read` never reads, whatever the allowed directories say. */
export const PSEUDO_FILE_ROOTS: readonly string[] = ['/proc', '/sys', '/dev'];

/**
 * Linux `statfs` magic numbers of kernel file systems whose files expose process state, keys or devices
 * (proc, sysfs, debugfs, securityfs, tracefs, cgroup v1/v2, devpts, bpf, efivarfs, configfs, pstore), so a
 * bind mount of `/proc` elsewhere is refused too.
 */
const PSEUDO_FS_MAGIC: ReadonlySet<number> = new Set([
  0x9fa0, 0x62656572, 0x64626720, 0x73636673, 0x74726163, 0x27e0eb, 0x63677270, 0x1cd1, 0xcafe4a11,
  0xde5e81e4, 0x62656570, 0x6165676c,
]);

/** The pseudo-file root a real path lies in (`/proc`, `/sys` or `/dev`), or undefined. */
export function pseudoFileRoot(realPath: string): string | undefined {
  return PSEUDO_FILE_ROOTS.find((root) => isInsideDir(realPath, root));
}

/**
 * True when `path` lives on a kernel pseudo file system (Linux only; elsewhere, and when the file system
 * cannot be asked, false: the path check of `pseudoFileRoot` still applies).
 */
export async function isOnPseudoFileSystem(path: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  try {
    return PSEUDO_FS_MAGIC.has((await statfs(path)).type);
  } catch {
    return false;
  }
}
