import { constants } from 'node:fs';
import { chmod, cp, lstat, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { HostIdentity } from './sandbox-bwrap.js';
import type { PyodidePackage } from './sandbox-pyodide.js';

const COMPLETE_MARKER = '.openjarvis-staged';

/** True when every folder from `path` up to `/` lets others through (o+x). */
async function othersCanTraverse(path: string): Promise<boolean> {
  let current = path;
  for (;;) {
    const info = await stat(current);
    if ((info.mode & constants.S_IXOTH) === 0) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** True when the jail's host user (an "other" to our files) can read the whole package where it is. */
async function readableByOthers(dir: string): Promise<boolean> {
  if (!(await othersCanTraverse(dir))) return false;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const info = await stat(join(dir, entry.name));
    const needed = entry.isDirectory() ? constants.S_IROTH | constants.S_IXOTH : constants.S_IROTH;
    if ((info.mode & needed) !== needed) return false;
  }
  return true;
}

/** True when `dir` is a finished copy that only we can change (our own folder, not group/other writable). */
async function trustedCopy(dir: string, uid: number): Promise<boolean> {
  try {
    const info = await lstat(dir);
    if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o022) !== 0) return false;
    const marker = await lstat(join(dir, COMPLETE_MARKER));
    return marker.isFile() && marker.uid === uid;
  } catch {
    return false;
  }
}

/** Copies the package into a fresh folder under `parent`, readable (not writable) by everyone. */
async function copyReadable(source: string, parent: string): Promise<string> {
  const temporary = await mkdtemp(join(parent, 'openjarvis-pyodide-staging-'));
  await cp(source, temporary, { recursive: true, dereference: true });
  for (const entry of await readdir(temporary, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    await chmod(path, entry.isDirectory() ? 0o755 : 0o644);
  }
  await writeFile(join(temporary, COMPLETE_MARKER), '');
  await chmod(temporary, 0o755);
  return temporary;
}

/**
 * The pyodide package as the jail can read it. The jail's host user (`identity`, from `jailHostIdentity`) is
 * unprivileged when we are root, so a package inside a folder closed to others (a checkout under `/root`, a 0700 temp
 * folder) is copied once per version into the OS temp folder, owned by us and readable by everyone. A
 * package others can already read, or any package when we are not root, is used where it is.
 */
export async function stagePyodideForJail(
  pyodide: PyodidePackage,
  identity: HostIdentity | undefined,
  parent: string = tmpdir(),
): Promise<PyodidePackage | string> {
  if (identity === undefined || (await readableByOthers(pyodide.dir))) return pyodide;
  const uid = process.geteuid?.() ?? 0;
  const target = join(parent, `openjarvis-pyodide-${pyodide.version}-pkg`);
  try {
    if (await trustedCopy(target, uid)) return { ...pyodide, dir: target };
    const copy = await copyReadable(pyodide.dir, parent);
    if (await trustedCopy(target, uid)) {
      await rm(copy, { recursive: true, force: true });
      return { ...pyodide, dir: target };
    }
    const moved = await rm(target, { recursive: true, force: true })
      .then(() => rename(copy, target))
      .then(() => true)
      .catch(() => false);
    return { ...pyodide, dir: moved && (await trustedCopy(target, uid)) ? target : copy };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return `the pyodide package at ${pyodide.dir} is not readable by the sandbox's user ${identity.uid} and could not be copied to ${parent}: ${detail}`;
  }
}
