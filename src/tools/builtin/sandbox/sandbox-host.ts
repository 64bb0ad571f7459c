import { constants } from 'node:fs';
import { access, lstat, readlink } from 'node:fs/promises';
import type { RootEntry } from './sandbox-bwrap.js';

/** What to tell the user when no backend is available. */
export const INSTALL_HINT =
  'install bubblewrap and python3 (Debian/Ubuntu: apt-get install -y bubblewrap python3; util-linux provides prlimit), ' +
  'or set allowUnsandboxed: true to run code WITHOUT isolation';

const ROOT_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64'];

/** True when `path` is an executable file. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `/bin`, `/lib`, ... as symlinks (merged-/usr systems) or directories to bind read-only. */
export async function rootEntries(): Promise<RootEntry[]> {
  const entries: RootEntry[] = [];
  for (const path of ROOT_LINKS) {
    try {
      const stat = await lstat(path);
      if (stat.isSymbolicLink()) entries.push({ path, target: await readlink(path) });
      else if (stat.isDirectory()) entries.push({ path });
    } catch {
      // Absent on this system.
    }
  }
  return entries;
}
