import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../../src/testing/index.js';
import { BUILT_CLI } from '../support/cli-build.js';
import { runCli } from '../support/run-cli.js';

// `jarvis scheduler` end to end: the built CLI against the scripted OpenAI-compatible server, with a temporary
// home folder. `start` runs as a real child process and is stopped with a real SIGTERM / SIGINT.

const ANSWER = 'pong from the scripted model';

let home: string;
let env: Record<string, string>;
let server: ScriptedOpenAIServer;
const live = new Set<ChildProcess>();

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'jarvis-e2e-scheduler-'));
  env = { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') };
  server = await startScriptedOpenAIServer({ handler: () => ({ content: ANSWER }) });
});

afterEach(async () => {
  for (const child of live) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

/** A running `jarvis` child: its stderr so far, a wait for a line on it, and its exit. */
interface LiveCli {
  readonly child: ChildProcess;
  readonly exit: Promise<{ readonly code: number | null; readonly signal: string | null }>;
  stderr(): string;
  /** Resolves when stderr matches `pattern`; rejects (with stderr) when the process ends first. */
  waitForStderr(pattern: RegExp): Promise<void>;
}

function startCli(args: readonly string[]): LiveCli {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const waitForStderr = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(stderr)) return;
        child.stderr?.off('data', check);
        resolve();
      };
      child.stderr?.on('data', check);
      check();
      void exit.then(() => reject(new Error(`jarvis ended before ${pattern}; stderr:\n${stderr}`)));
    });
  return { child, exit, stderr: () => stderr, waitForStderr };
}

/** Resolves with the exit, or rejects when the process is still running after `ms` (a guard, not a sleep). */
function exitWithin(
  cli: LiveCli,
  ms: number,
): Promise<{ code: number | null; signal: string | null }> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running ${ms} ms after the signal; stderr:\n${cli.stderr()}`)),
      ms,
    );
  });
  return Promise.race([cli.exit, guard]).finally(() => clearTimeout(timer));
}

const engineFlags = () => ['--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];

describe('jarvis scheduler (built CLI)', () => {
  it("a bad schedule value is a usage error (exit 2) with the scheduler's message", async () => {
    const run = await runCli(['scheduler', 'create', 'hi', '--type', 'interval', '--value', '0'], {
      env,
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      "error: invalid interval '0': give a number of seconds from 1 to 315360000, e.g. '3600'\n",
    );
  });

  it('`delete` removes a task with its history; deleting it again is a usage error (exit 2)', async () => {
    const created = await runCli(
      ['scheduler', 'create', 'weekly report', '--type', 'cron', '--value', '@weekly', '--json'],
      { env },
    );
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const deleted = await runCli(['scheduler', 'delete', id], { env });
    expect(deleted).toMatchObject({ code: 0, stderr: '' });
    expect(deleted.stdout).toBe(
      `Deleted task ${id} (active, cron @weekly) and its 0 run-log entries.\n`,
    );
    const again = await runCli(['scheduler', 'delete', id], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`Task not found: ${id}`);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '`start` runs a 1 s interval task and stops cleanly on %s; `logs` shows the run',
    async (signal) => {
      const created = await runCli(
        ['scheduler', 'create', 'say ping', '--type', 'interval', '--value', '1', '--json'],
        { env },
      );
      expect(created.code).toBe(0);
      const { id } = JSON.parse(created.stdout) as { id: string };

      const cli = startCli(['scheduler', 'start', ...engineFlags()]);
      await cli.waitForStderr(new RegExp(`task ${id} succeeded in [\\d.]+ s: ${ANSWER}\\n`));
      cli.child.kill(signal);
      const exit = await exitWithin(cli, 5_000);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(cli.stderr()).toMatch(/Scheduler running with 1 active task\(s\)/);
      expect(cli.stderr()).toMatch(/Scheduler stopped\.\n$/);
      expect(cli.stderr()).not.toMatch(/error/i);

      const logs = await runCli(['scheduler', 'logs', id], { env });
      expect(logs.code).toBe(0);
      expect(logs.stdout).toMatch(new RegExp(`succeeded\\s+1\\s+${ANSWER}\\n`));
      expect(server.requests.some((request) => request.rawBody.includes('say ping'))).toBe(true);
    },
  );
});
