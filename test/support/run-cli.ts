import { spawn } from 'node:child_process';
import { BUILT_CLI } from './cli-build.js';

/** What a finished `jarvis` process printed and how it ended. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of `runCli`. */
export interface RunCliOptions {
  /** Environment added to a clean one (PATH and HOME only are inherited; HOME should be a temp folder). */
  readonly env?: Readonly<Record<string, string>>;
  readonly stdin?: string;
  readonly cwd?: string;
  /** The CLI entry to run (default the test build's). */
  readonly cli?: string;
  /** Killed (SIGKILL) after this long; default 20 s. */
  readonly timeoutMs?: number;
}

/** Spawns the built `jarvis` with `args`, feeds stdin, and resolves when it exits. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [options.cli ?? BUILT_CLI, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
