import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TelemetryStore } from '../telemetry/index.js';
import type { CliIo } from './cli-io.js';
import { doctorText } from './doctor-action.js';
import { runCli } from './program.js';
import { formatCost, formatLatency } from './tools-action.js';

interface FakeIo extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-inspect-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** A CliIo over strings: `tty` makes stdin, stdout and stderr terminals; `input` is what stdin holds. */
function fakeIo(options: { tty?: boolean; columns?: number; input?: string } = {}): FakeIo {
  let out = '';
  let err = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: options.tty === true });
  if (options.input !== undefined) stdin.write(options.input);
  const stream = (write: (text: string) => void) => ({
    write,
    isTTY: options.tty === true,
    columns: options.columns ?? 80,
  });
  return {
    stdout: stream((text) => {
      out += text;
    }),
    stderr: stream((text) => {
      err += text;
    }),
    stdin,
    env: { OPENJARVIS_HOME: join(home, '.openjarvis') },
    cwd: home,
    signal: new AbortController().signal,
    out: () => out,
    err: () => err,
  };
}

async function run(argv: readonly string[], io: FakeIo): Promise<number> {
  return runCli(argv, io);
}

describe('jarvis tools list on a terminal', () => {
  it('fits every line to the terminal width', async () => {
    const io = fakeIo({ tty: true, columns: 60 });
    expect(await run(['tools', 'list'], io)).toBe(0);
    const lines = io.out().trimEnd().split('\n');
    expect(lines).toHaveLength(13);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    expect(lines.some((line) => line.endsWith('…'))).toBe(true);
  });

  it('formats estimates', () => {
    expect([0, 0.00001, 0.0025, 1.5, -1].map(formatCost)).toEqual([
      '$0',
      '<$0.0001',
      '$0.0025',
      '$1.50',
      '?',
    ]);
    expect([0, 0.25, 2, Number.NaN].map(formatLatency)).toEqual(['-', '0.25s', '2s', '?']);
  });
});

describe('jarvis telemetry stats', () => {
  async function record(): Promise<void> {
    const store = new TelemetryStore({ dbPath: join(home, '.openjarvis', 'telemetry.db') });
    const call = {
      timestampMs: 1_700_000_000_000,
      model: 'qwen3:8b',
      engine: 'ollama',
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      latencySeconds: 2,
      ttftSeconds: 0.5,
      throughputTokensPerSecond: 3,
      costUsd: 0,
      success: true,
    };
    store.record(call);
    store.record({ ...call, latencySeconds: 4, success: false, error: 'refused' });
    await store.close();
  }

  it('shows one row per model and engine', async () => {
    await record();
    const io = fakeIo();
    expect(await run(['telemetry', 'stats'], io)).toBe(0);
    const [header, row] = io.out().trimEnd().split('\n');
    expect(header).toMatch(/^MODEL\s+ENGINE\s+CALLS\s+FAILED/);
    expect(row?.split(/\s+/)).toEqual([
      'qwen3:8b',
      'ollama',
      '2',
      '1',
      '20',
      '10',
      '2.00s',
      '2.00s',
      '0.50s',
      '$0.0000',
    ]);
  });

  it('prints snake_case JSON', async () => {
    await record();
    const io = fakeIo();
    expect(await run(['telemetry', '--json'], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual([
      expect.objectContaining({
        model: 'qwen3:8b',
        engine: 'ollama',
        calls: 2,
        failures: 1,
        prompt_tokens: 20,
        mean_latency_seconds: 2,
      }),
    ]);
  });

  it('says nothing was recorded without creating the store', async () => {
    const io = fakeIo();
    expect(await run(['telemetry', 'stats'], io)).toBe(0);
    expect(io.out()).toMatch(/No model calls recorded yet/);
    expect(existsSync(join(home, '.openjarvis', 'telemetry.db'))).toBe(false);
  });
});

describe('jarvis memory on a terminal', () => {
  async function indexSomething(): Promise<FakeIo> {
    const docs = join(home, 'docs');
    await mkdir(docs);
    await writeFile(
      join(docs, 'a.md'),
      '# Release\n\nThe release checklist: bump, tag, publish.\n',
    );
    await writeFile(join(docs, 'b.txt'), 'Bananas are yellow.\n');
    const io = fakeIo({ tty: true });
    expect(await run(['memory', 'index', docs], io)).toBe(0);
    return io;
  }

  it('draws a progress bar on stderr and prints the summary', async () => {
    const io = await indexSomething();
    expect(io.err()).toMatch(/\[\s*===\s*\] \d files, \d chunks/);
    expect(io.err().endsWith('\r\u001b[2K')).toBe(true);
    expect(io.out()).toBe('Indexed 2 files: 2 chunks written, 0 unchanged, 0 skipped.\n');
  });

  it('memory clear asks, and only a yes deletes', async () => {
    await indexSomething();
    const no = fakeIo({ tty: true, input: 'n\n' });
    expect(await run(['memory', 'clear'], no)).toBe(0);
    expect(no.err()).toMatch(
      /Delete all 2 chunks from .*memory\.db\? \[y\/N\] Nothing was deleted\./,
    );
    const yes = fakeIo({ tty: true, input: 'y\n' });
    expect(await run(['memory', 'clear'], yes)).toBe(0);
    expect(yes.out()).toMatch(/^Deleted 2 chunks from /);
    const stats = fakeIo();
    expect(await run(['memory', 'stats', '--json'], stats)).toBe(0);
    expect(JSON.parse(stats.out())).toMatchObject({ backend: 'sqlite', exists: true, count: 0 });
  });
});

describe('doctorText', () => {
  it('marks each check, indents details and fixes, and ends with the verdict', () => {
    const text = doctorText({
      ok: false,
      checks: [
        {
          name: 'node',
          title: 'Node.js',
          status: 'ok',
          required: true,
          summary: '20.1.0',
          details: [],
        },
        {
          name: 'engines',
          title: 'Engines',
          status: 'fail',
          required: true,
          summary: 'none reachable',
          details: ['ollama  http://127.0.0.1:11434  no answer'],
          fix: 'start one',
        },
        {
          name: 'sandbox',
          title: 'Code sandbox',
          status: 'warn',
          required: false,
          summary: 'none',
          details: [],
          fix: 'install',
        },
      ],
    });
    expect(text).toBe(
      [
        '✓ Node.js      20.1.0',
        '✗ Engines      none reachable',
        '               ollama  http://127.0.0.1:11434  no answer',
        '               fix: start one',
        '! Code sandbox none',
        '               fix: install',
        '',
        '1 required check failed: Engines. Fix as shown above and run `jarvis doctor` again.',
        '',
      ].join('\n'),
    );
  });
});
