import { readdirSync, readFileSync } from 'node:fs';

/** True where children can be started in their own process group and the group signalled (POSIX). */
export const PROCESS_GROUPS_SUPPORTED = process.platform !== 'win32';

/** How often a group that was told to end is checked again. */
const GROUP_POLL_MS = 10;

/** Sends `signal` to every process of the group led by `pgid`; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while the process group `pgid` has a member that is not a zombie. Killed members of a group whose
 * leader is gone are reparented to init, and an init that does not reap (common in containers) leaves
 * zombies behind: they hold no resources and cannot be signalled further, so they count as gone.
 */
export function groupHasLiveMembers(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  return linuxGroupMembers(pgid).some((state) => state !== 'Z' && state !== 'X');
}

/** The states (`R`, `S`, `Z`, …) of the processes in group `pgid`, read from `/proc`. */
function linuxGroupMembers(pgid: number): string[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return ['?'];
  }
  const states: string[] = [];
  for (const entry of entries) {
    const stat = readStat(entry);
    if (stat !== undefined && stat.pgrp === pgid) states.push(stat.state);
  }
  return states;
}

/** State and process group of one `/proc/<pid>/stat` (the name in parentheses may hold spaces). */
function readStat(pid: string): { state: string; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '?', pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** Resolves once the group has no live member, or after `timeoutMs` (then false). */
export async function waitForGroupEnd(pgid: number, timeoutMs: number): Promise<boolean> {
  const rounds = Math.max(1, Math.ceil(timeoutMs / GROUP_POLL_MS));
  for (let round = 0; round < rounds; round += 1) {
    if (!groupHasLiveMembers(pgid)) return true;
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
  return !groupHasLiveMembers(pgid);
}
