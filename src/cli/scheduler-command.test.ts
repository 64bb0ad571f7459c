import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../testing/index.js';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';

interface FakeRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let home: string;
let server: ScriptedOpenAIServer | undefined;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'jarvis-cli-scheduler-'));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(home, { recursive: true, force: true });
});

/** Runs `jarvis <args>` in this process with a fake terminal-less io; `onStderr` sees stderr as it is written. */
async function jarvis(
  args: readonly string[],
  options: { signal?: AbortSignal; onStderr?: (text: string) => void } = {},
): Promise<FakeRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write: (text) => {
        stdout += text;
      },
      isTTY: false,
      columns: 80,
    },
    stderr: {
      write: (text) => {
        stderr += text;
        options.onStderr?.(stderr);
      },
      isTTY: false,
      columns: 80,
    },
    stdin: Readable.from([]),
    env: { OPENJARVIS_HOME: home, HOME: home },
    cwd: home,
    signal: options.signal ?? new AbortController().signal,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

async function createTask(...args: string[]): Promise<Record<string, unknown>> {
  const run = await jarvis(['scheduler', 'create', ...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

async function scriptedEngineFlags(answer: string): Promise<string[]> {
  server = await startScriptedOpenAIServer({ handler: () => ({ content: answer }) });
  return ['--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
}

describe('jarvis scheduler create', () => {
  it('prints the id, status and next run, and the task is listed', async () => {
    const run = await jarvis([
      'scheduler',
      'create',
      'Summarise the news',
      '--type',
      'cron',
      '--value',
      '0 9 * * *',
      '--tools',
      'calculator,think',
    ]);
    expect(run.code).toBe(0);
    const id = /^Created task (\w+)$/m.exec(run.stdout)?.[1];
    expect(id).toMatch(/^\w{16}$/);
    expect(run.stdout).toMatch(/status: {3}active/);
    expect(run.stdout).toMatch(/next run: \d{4}-\d\d-\d\dT09:00:00\+00:00\n/);
    expect(run.stdout).toContain('agent:    orchestrator (tools: calculator,think)');

    const list = await jarvis(['scheduler', 'list']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TYPE\s+VALUE\s+NEXT RUN\s+LAST RUN\s+PROMPT$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${id}\\s+active\\s+cron\\s+0 9 \\* \\* \\*\\s+\\S+T09:00:00\\+00:00\\s+-\\s+Summa`,
      ),
    );
  });

  it('--json gives the snake_case task with next_run in ISO 8601', async () => {
    const task = await createTask('Check the disk', '--type', 'interval', '--value', '3600');
    expect(task).toMatchObject({
      prompt: 'Check the disk',
      schedule_type: 'interval',
      schedule_value: '3600',
      status: 'active',
      agent: 'simple',
      tools: '',
    });
    expect(task.next_run).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
  });

  it.each([
    [['--type', 'interval', '--value', '-5'], "invalid interval '-5': give a number of seconds"],
    [['--type', 'interval', '--value', 'soon'], "invalid interval 'soon'"],
    [['--type', 'cron', '--value', '61 * * * *'], "invalid cron expression '61 * * * *'"],
    [['--type', 'cron', '--value', '* * *'], 'a cron expression has 5 fields'],
    [
      ['--type', 'once', '--value', '2026-02-30T09:00:00Z'],
      "invalid date-time '2026-02-30T09:00:00Z'",
    ],
    [
      ['--type', 'weekly', '--value', '1'],
      "invalid schedule type 'weekly': use 'cron', 'interval' or 'once'",
    ],
    [
      ['--type', 'cron', '--value', '0 9 * * *', '--timezone', 'Mars/Olympus'],
      "unknown time zone 'Mars/Olympus'",
    ],
    [['--type', 'once'], "required option '--value <value>' not specified"],
    [
      ['--type', 'interval', '--value', '60', '--tools', 'calculator,nope'],
      "Unknown tool 'nope' (--tools). Available: calculator",
    ],
    [
      ['--type', 'interval', '--value', '60', '--agent', 'nobody'],
      "Unknown agent 'nobody' (--agent). Available:",
    ],
  ])('refuses %j with exit 2 and the reason', async (flags, message) => {
    const run = await jarvis(['scheduler', 'create', 'a prompt', ...flags]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect((await jarvis(['scheduler', 'list', '--json'])).stdout).toBe('[]\n');
  });

  it('refuses an empty prompt', async () => {
    const run = await jarvis(['scheduler', 'create', ' ', '--type', 'interval', '--value', '5']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('prompt must be a non-empty string');
  });
});

describe('jarvis scheduler list, pause, resume, cancel', () => {
  it('an empty list says how to create a task, on stderr', async () => {
    const run = await jarvis(['scheduler', 'list']);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr).toContain('No scheduled tasks. Create one with: jarvis scheduler create');
  });

  it('follows the state machine and filters by status', async () => {
    const { id } = await createTask('Ping', '--type', 'interval', '--value', '60');
    const paused = await jarvis(['scheduler', 'pause', String(id)]);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain(`Paused task ${id}`);
    expect(paused.stdout).toMatch(/status: {3}paused/);

    const again = await jarvis(['scheduler', 'pause', String(id)]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `error: Cannot pause task ${id}: it is paused; only active tasks can be paused\n`,
    );

    const listed = await jarvis(['scheduler', 'list', '--status', 'paused', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id, status: 'paused' }]);
    expect((await jarvis(['scheduler', 'list', '--status', 'active', '--json'])).stdout).toBe(
      '[]\n',
    );

    expect((await jarvis(['scheduler', 'resume', String(id)])).stdout).toMatch(
      /Resumed task \w+\n {2}status: {3}active/,
    );
    const cancelled = await jarvis(['scheduler', 'cancel', String(id)]);
    expect(cancelled.stdout).toContain('next run: none');
    const resumed = await jarvis(['scheduler', 'resume', String(id)]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(`Cannot resume task ${id}: it is cancelled (a final status)`);
  });

  it('an unknown id or status is a usage error saying what to do', async () => {
    for (const action of ['pause', 'resume', 'cancel', 'logs', 'run-now']) {
      const run = await jarvis(['scheduler', action, 'nope']);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        'error: Task not found: nope; see the task ids with `jarvis scheduler list`\n',
      );
    }
    const status = await jarvis(['scheduler', 'list', '--status', 'done']);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(
      "unknown status 'done': use active, paused, completed, cancelled",
    );
    expect((await jarvis(['scheduler', 'logs', 'x', '--limit', '0'])).code).toBe(2);
  });
});

describe('jarvis scheduler run-now and logs', () => {
  it('runs the task through the agent, prints the answer, and logs the run', async () => {
    const engine = await scriptedEngineFlags('All disks are fine.');
    const { id } = await createTask('Check the disks', '--type', 'interval', '--value', '3600');
    const none = await jarvis(['scheduler', 'logs', String(id)]);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain(`Task ${id} has not run yet (active, next run `);

    const run = await jarvis(['scheduler', 'run-now', String(id), ...engine]);
    expect(run).toMatchObject({ code: 0, stdout: 'All disks are fine.\n' });
    const request = server?.requests.find((entry) => entry.path === '/v1/chat/completions');
    expect(JSON.stringify(request?.body)).toContain('Check the disks');

    const logs = await jarvis(['scheduler', 'logs', String(id)]);
    expect(logs.code).toBe(0);
    const [header, row] = logs.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^SCHEDULED\s+STARTED\s+FINISHED\s+STATUS\s+ATTEMPT\s+RESULT \/ ERROR$/);
    expect(row).toMatch(/^(\S+\+00:00\s+){3}succeeded\s+1\s+All disks are fine\.$/);
    const json = JSON.parse((await jarvis(['scheduler', 'logs', String(id), '--json'])).stdout);
    expect(json).toMatchObject([
      {
        task_id: id,
        status: 'succeeded',
        success: true,
        attempt: 1,
        result: 'All disks are fine.',
      },
    ]);
  });

  it('a failed run exits 1 with the error, and is recorded', async () => {
    server = await startScriptedOpenAIServer({
      handler: () => ({ fault: 'status', status: 400, body: { error: { message: 'bad model' } } }),
    });
    const { id } = await createTask('Hi', '--type', 'interval', '--value', '3600');
    const flags = ['--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
    const run = await jarvis(['scheduler', 'run-now', String(id), ...flags]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`error: task ${id} failed: `);
    expect(run.stderr).toContain(`jarvis scheduler logs ${id}`);
    const logs = JSON.parse((await jarvis(['scheduler', 'logs', String(id), '--json'])).stdout);
    expect(logs).toMatchObject([{ status: 'failed', success: false }]);
  });
});

describe('jarvis scheduler start', () => {
  it('runs due tasks, reports each start and end on stderr, and stops cleanly when aborted', async () => {
    const engine = await scriptedEngineFlags('pong');
    const { id } = await createTask('ping', '--type', 'interval', '--value', '1');
    const controller = new AbortController();
    const run = await jarvis(['scheduler', 'start', ...engine], {
      signal: controller.signal,
      onStderr: (text) => {
        if (/ succeeded in /.test(text)) controller.abort();
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /Scheduler running with 1 active task\(s\) \(engine openai, model m; database /,
    );
    expect(run.stderr).toMatch(
      new RegExp(`task ${id} started \\(scheduled \\S+, attempt 1\\): ping\\n`),
    );
    expect(run.stderr).toMatch(new RegExp(`task ${id} succeeded in \\d+\\.\\d\\d s: pong\\n`));
    expect(run.stderr).toMatch(/Scheduler stopped\.\n$/);
    const logs = JSON.parse((await jarvis(['scheduler', 'logs', String(id), '--json'])).stdout);
    expect(logs.some((entry: { result: string }) => entry.result === 'pong')).toBe(true);
  });

  it('without a reachable engine it fails at once instead of at every run', async () => {
    const run = await jarvis([
      'scheduler',
      'start',
      '--engine',
      'openai',
      '--base-url',
      'http://127.0.0.1:9/v1',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: /m);
    expect(run.stderr).not.toContain('Scheduler running');
  });
});

describe('jarvis scheduler hardening (issue 13)', () => {
  it('delete removes the task and its run history; an unknown id exits 2', async () => {
    const { id } = await createTask('Ping', '--type', 'interval', '--value', '60');
    const db = new Database(join(home, 'scheduler.db'));
    db.prepare(
      "INSERT INTO task_runs (task_id, scheduled_ms, status, finished_ms) VALUES (?, 1, 'missed', 1)",
    ).run(id);
    db.close();
    const deleted = await jarvis(['scheduler', 'delete', String(id)]);
    expect(deleted).toMatchObject({ code: 0, stderr: '' });
    expect(deleted.stdout).toBe(
      `Deleted task ${id} (active, interval 60) and its 1 run-log entry.\n`,
    );
    expect((await jarvis(['scheduler', 'list', '--json'])).stdout).toBe('[]\n');
    const again = await jarvis(['scheduler', 'delete', String(id)]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `error: Task not found: ${id}; see the task ids with \`jarvis scheduler list\`\n`,
    );
  });

  it('delete refuses a task that is running now and says what to do (exit 1)', async () => {
    const { id } = await createTask('Ping', '--type', 'interval', '--value', '60');
    const db = new Database(join(home, 'scheduler.db'));
    db.prepare(
      `INSERT INTO task_runs (task_id, scheduled_ms, status, attempt, lease_owner, lease_expires_ms, started_ms)
       VALUES (?, 1, 'running', 1, 'other', ?, ?)`,
    ).run(id, Date.parse('2999-01-01T00:00:00Z'), Date.parse('2026-03-01T09:00:00Z'));
    db.close();
    const run = await jarvis(['scheduler', 'delete', String(id)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: Task ${id} is running now since 2026-03-01T09:00:00+00:00; it was not deleted. Wait for the run to end (or stop the scheduler running it), then delete it again; \`cancel\` stops further runs meanwhile\n`,
    );
    expect(JSON.parse((await jarvis(['scheduler', 'list', '--json'])).stdout)).toHaveLength(1);
  });

  it('create, list and logs print instants one way, the way --json starts them', async () => {
    const created = await jarvis([
      'scheduler',
      'create',
      'Call Ana',
      '--type',
      'once',
      '--value',
      '2099-06-01T09:30:00.250Z',
    ]);
    expect(created.stdout).toContain('  next run: 2099-06-01T09:30:00+00:00\n');
    const list = await jarvis(['scheduler', 'list']);
    expect(list.stdout).toMatch(
      / once +2099-06-01T09:30:00.250Z +2099-06-01T09:30:00\+00:00 +- +Call Ana\n/,
    );
    const [task] = JSON.parse((await jarvis(['scheduler', 'list', '--json'])).stdout);
    expect(task.next_run).toBe('2099-06-01T09:30:00.250000+00:00');
    const id = String(task.id);
    const none = await jarvis(['scheduler', 'logs', id]);
    expect(none.stderr).toContain(`(active, next run 2099-06-01T09:30:00+00:00)`);
  });

  it('list shows stored prompts with escape sequences made visible (--json keeps them exact)', async () => {
    const prompt =
      'see \u001b]8;;https://evil.example\u0007this\u001b]8;;\u0007\u001b[2K\u001b[1A done';
    const { id } = await createTask(prompt, '--type', 'interval', '--value', '60');
    const list = await jarvis(['scheduler', 'list']);
    expect(list.stdout).not.toContain('\u001b');
    expect(list.stdout).toContain(
      'see ^[]8;;https://evil.example\\u{7}this^[]8;;\\u{7}^[[2K^[[1A done',
    );
    const paused = await jarvis(['scheduler', 'pause', String(id)]);
    expect(paused.stdout).not.toContain('\u001b');
    expect(JSON.parse((await jarvis(['scheduler', 'list', '--json'])).stdout)[0].prompt).toBe(
      prompt,
    );
  });

  it('run-now shows a stored answer with escape sequences made visible', async () => {
    const engine = await scriptedEngineFlags('ok \u001b]0;owned\u0007\u001b[2J done');
    const { id } = await createTask('Hi', '--type', 'interval', '--value', '3600');
    const run = await jarvis(['scheduler', 'run-now', String(id), ...engine]);
    expect(run).toMatchObject({ code: 0, stdout: 'ok ^[]0;owned\\u{7}^[[2J done\n' });
    const logs = await jarvis(['scheduler', 'logs', String(id)]);
    expect(logs.stdout).toContain('ok ^[]0;owned\\u{7}^[[2J done');
  });

  it.each(['@daily', '@hourly', '@weekly', '@monthly', '@yearly', '@annually', '@midnight'])(
    'accepts the cron nickname %s',
    async (nickname) => {
      const task = await createTask('Report', '--type', 'cron', '--value', nickname);
      expect(task).toMatchObject({ schedule_type: 'cron', schedule_value: nickname });
      expect(task.next_run).toMatch(/T\d\d:00:00\+00:00$/);
    },
  );

  it.each([
    [
      ['--type', 'once', '--value', '2020-01-01T00:00:00Z'],
      "error: once time '2020-01-01T00:00:00Z' (2020-01-01T00:00:00+00:00) is in the past (now ",
    ],
    [
      ['--type', 'interval', '--value', '0.001'],
      "error: invalid interval '0.001' (shorter than the minimum of 1 s): give a number of seconds from 1 to 315360000",
    ],
  ])('refuses %j (exit 2) saying what is accepted', async (flags, message) => {
    const run = await jarvis(['scheduler', 'create', 'p', ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect((await jarvis(['scheduler', 'list', '--json'])).stdout).toBe('[]\n');
  });
});
