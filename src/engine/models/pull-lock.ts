import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Who holds a models folder's pull lock, as its lock file says. */
export interface PullLockHolder {
  readonly pid: number;
  readonly host: string;
}

/** Options of `withPullLock`. */
export interface PullLockOptions {
  /** Ends the wait (rejects); a held lock is always released. */
  readonly signal?: AbortSignal | undefined;
  /** Called once when another process holds the lock and this one starts waiting. */
  readonly onWaiting?: ((holder: PullLockHolder) => void) | undefined;
  /** Time between looks at the lock file (default 200 ms). */
  readonly pollMs?: number;
}

const LOCK_FILE = 'pull.lock';

/**
 * Runs `task` while holding the pull lock of `stagingDir`, so pulls into one models folder from several processes
 * run one after another: the second then finds the finished file instead of writing into the same partial one.
 * A lock whose process is gone (same host, pid no longer running) is taken over.
 */
export async function withPullLock<T>(
  stagingDir: string,
  task: () => Promise<T>,
  options: PullLockOptions = {},
): Promise<T> {
  const path = join(stagingDir, LOCK_FILE);
  await acquire(path, options);
  try {
    return await task();
  } finally {
    await rm(path, { force: true });
  }
}

async function acquire(path: string, options: PullLockOptions): Promise<void> {
  const own = JSON.stringify({ pid: process.pid, host: hostname() });
  let announced = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      await writeFile(path, own, { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder !== undefined && !isRunning(holder)) {
      await takeOver(path);
      continue;
    }
    if (!announced && holder !== undefined) options.onWaiting?.(holder);
    announced = true;
    await sleep(options.pollMs ?? 200, undefined, { signal: options.signal });
  }
}

async function readHolder(path: string): Promise<PullLockHolder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<PullLockHolder>;
    if (Number.isSafeInteger(parsed.pid) && typeof parsed.host === 'string')
      return { pid: parsed.pid as number, host: parsed.host };
  } catch {
    // Being written, just removed, or not ours: looked at again on the next round.
  }
  return undefined;
}

/** Whether the holder may still be running (a process on another host is assumed to be). */
function isRunning(holder: PullLockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Moves a dead holder's lock aside (atomically, so of two waiters only one removes it) and deletes it. */
async function takeOver(path: string): Promise<void> {
  const aside = `${path}.${randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  await rm(aside, { force: true });
}
