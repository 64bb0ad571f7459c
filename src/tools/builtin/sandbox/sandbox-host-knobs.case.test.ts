// Shared by the sandbox tests and the ordinary-user fixture (so it imports nothing from vitest): the host-global
// kernel knobs hostile code must not reach, snippets that try, a guard that puts the host back if one ever gets
// through, and a host-side look at the user a sandboxed process runs as. Not a test file itself.
import { readdir, readFile, writeFile } from 'node:fs/promises';

/** A host-global kernel knob and a harmless different value to try writing into it. */
export interface HostKnob {
  readonly name: string;
  readonly path: string;
  /** The value hostile code writes, given the host's current one (always different, never a dangerous one). */
  readonly attempt: (current: string, marker: string) => string;
}

/**
 * The knobs of issue 13. The values tried are chosen so that, were the defect back, the few milliseconds before
 * the guard restores them harm nothing: a core pattern that only touches a marker file, ASLR 2 <-> 1, a panic
 * timeout one second longer, overcommit 0 <-> 1 (never 2, which could fail other processes' allocations).
 */
export const HOST_KNOBS: readonly HostKnob[] = [
  {
    name: 'kernel.core_pattern',
    path: '/proc/sys/kernel/core_pattern',
    attempt: (_current, marker) => `|/usr/bin/touch ${marker}`,
  },
  {
    name: 'kernel.randomize_va_space',
    path: '/proc/sys/kernel/randomize_va_space',
    attempt: (current) => (current.trim() === '2' ? '1' : '2'),
  },
  {
    name: 'kernel.panic',
    path: '/proc/sys/kernel/panic',
    attempt: (current) => String(Number(current.trim()) + 1),
  },
  {
    name: 'vm.overcommit_memory',
    path: '/proc/sys/vm/overcommit_memory',
    attempt: (current) => (current.trim() === '1' ? '0' : '1'),
  },
];

/** The magic SysRq trigger: hostile code only opens it for writing (writing a key could crash the host). */
export const SYSRQ_TRIGGER = '/proc/sysrq-trigger';

/** What a knob snippet prints when its write went through (an escape). */
export const WRITTEN = 'KNOB-WRITTEN';

/** What a knob snippet prints when its write was refused. */
export const REFUSED = 'KNOB-REFUSED';

/** Python that writes `value` into `path` and says which happened; `abort` then dumps core (the escape). */
export function pythonKnobWrite(path: string, value: string, abort = false): string {
  return [
    'import os',
    'try:',
    `    with open(${JSON.stringify(path)}, 'w') as f: f.write(${JSON.stringify(value)})`,
    `    print(${JSON.stringify(WRITTEN)}, flush=True)`,
    'except OSError as e:',
    `    print(${JSON.stringify(REFUSED)}, type(e).__name__, e.strerror, flush=True)`,
    ...(abort ? ['os.abort()'] : []),
  ].join('\n');
}

/** Python that opens `path` for writing without writing anything, and says whether the open succeeded. */
export function pythonOpenForWrite(path: string): string {
  return [
    'import os',
    'try:',
    `    os.close(os.open(${JSON.stringify(path)}, os.O_WRONLY))`,
    `    print(${JSON.stringify(WRITTEN)}, flush=True)`,
    'except OSError as e:',
    `    print(${JSON.stringify(REFUSED)}, type(e).__name__, e.strerror, flush=True)`,
  ].join('\n');
}

/** A JavaScript statement (CommonJS, `fs` = node:fs in scope) writing `value` into `path`, printing which happened. */
export function nodeKnobWrite(path: string, value: string): string {
  return `try { fs.writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(value)}); console.log(${JSON.stringify(WRITTEN)}); } catch (e) { console.log(${JSON.stringify(REFUSED)}, e.code); }`;
}

/** A JavaScript statement (`fs` in scope) opening `path` for writing without writing, printing which happened. */
export function nodeOpenForWrite(path: string): string {
  return `try { fs.closeSync(fs.openSync(${JSON.stringify(path)}, fs.constants.O_WRONLY)); console.log(${JSON.stringify(WRITTEN)}); } catch (e) { console.log(${JSON.stringify(REFUSED)}, e.code); }`;
}

/** Pyodide Python that writes `value` into `path` through node:fs (its only way to the host's files). */
export function pyodideKnobWrite(path: string, value: string): string {
  return [
    'from pyodide.code import run_js',
    `fs = await run_js('import("node:fs")')`,
    'try:',
    `    fs.writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(value)})`,
    `    print(${JSON.stringify(WRITTEN)}, flush=True)`,
    'except Exception as e:',
    `    print(${JSON.stringify(REFUSED)}, e, flush=True)`,
  ].join('\n');
}

/** Records the host's knob values once, and puts back any that changed (needs root, as only root could change them). */
export class HostKnobGuard {
  readonly #original = new Map<string, string>();

  /** Reads every knob (call before any sandboxed code runs). */
  async record(): Promise<void> {
    for (const knob of HOST_KNOBS) this.#original.set(knob.path, await readFile(knob.path, 'utf8'));
  }

  /** The recorded value of `knob`. */
  original(knob: HostKnob): string {
    const value = this.#original.get(knob.path);
    if (value === undefined) throw new Error(`${knob.name} was not recorded`);
    return value;
  }

  /** Restores every knob whose host value differs from the recorded one and returns their names. */
  async restoreChanged(): Promise<string[]> {
    const changed: string[] = [];
    for (const knob of HOST_KNOBS) {
      const before = this.original(knob);
      if ((await readFile(knob.path, 'utf8')) === before) continue;
      changed.push(knob.name);
      await writeFile(knob.path, before);
    }
    return changed;
  }
}

/** The host's view of a sandboxed process: its real/effective/saved/fs uids and gids, groups and capabilities. */
export interface HostIds {
  readonly uids: readonly number[];
  readonly gids: readonly number[];
  readonly groups: string;
  readonly capEff: string;
  readonly capBnd: string;
}

/** The `Key:` line of a /proc status file, without the key. */
const statusField = (status: string, key: string): string =>
  (status.split('\n').find((line) => line.startsWith(`${key}:`)) ?? '')
    .slice(key.length + 1)
    .trim();

/** Parses /proc/<pid>/status into `HostIds`. */
export function hostIdsOf(status: string): HostIds {
  const numbers = (key: string): number[] => statusField(status, key).split(/\s+/).map(Number);
  return {
    uids: numbers('Uid'),
    gids: numbers('Gid'),
    groups: statusField(status, 'Groups'),
    capEff: statusField(status, 'CapEff'),
    capBnd: statusField(status, 'CapBnd'),
  };
}

/** How long `hostIdsWhile` waits between two scans of the host's process table. */
const HOST_SCAN_INTERVAL_MS = 20;

/** The host pid of a process whose name (`/proc/<pid>/comm`) is `marker`, if there is one now. */
async function findByName(marker: string): Promise<number | undefined> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const name = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (name.trim() === marker) return Number(entry);
  }
  return undefined;
}

/**
 * Watches the host's process table while `running` (a sandboxed run whose code renames its process to `marker`
 * and then waits) is under way; reads that process's ids from the host side, then kills it so the run ends.
 * Undefined when the run ended before the process showed up.
 */
export async function hostIdsWhile(
  marker: string,
  running: Promise<unknown>,
): Promise<HostIds | undefined> {
  let settled = false;
  const watched = running.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    const pid = await findByName(marker);
    const status =
      pid === undefined ? '' : await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    if (pid !== undefined && status !== '') {
      process.kill(pid, 'SIGKILL');
      await watched;
      return hostIdsOf(status);
    }
    // A pause between scans: scanning back to back kept a core busy while the sandbox started.
    await new Promise((resolve) => setTimeout(resolve, HOST_SCAN_INTERVAL_MS));
  }
  return undefined;
}

/** Python that renames its process to `marker` (15 characters at most) and waits to be looked at. */
export function pythonNamedWait(marker: string): string {
  return `import ctypes, time\nctypes.CDLL(None).prctl(15, ${JSON.stringify(marker)}.encode(), 0, 0, 0)\ntime.sleep(60)`;
}

/** Pyodide Python that renames its Node process to `marker` (15 characters at most) and waits to be looked at. */
export function pyodideNamedWait(marker: string): string {
  return `import asyncio, js\njs.process.title = ${JSON.stringify(marker)}\nawait asyncio.sleep(60)`;
}
