import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from '../../src/testing/index.js';
import { usePostgres } from '../support/postgres-server.js';
import { type CliRun, runCli } from '../support/run-cli.js';

// `[storage] backend = "postgres"` as a user sets it up: the built CLI keeps sessions, memory and scheduled tasks
// in PostgreSQL (each command a new process reading what the last one stored), and no SQLite file appears in the
// OpenJarvis home. The telemetry half is test/cli/telemetry-postgres.test.ts.

const postgres = usePostgres();
const homes: string[] = [];
const servers: ScriptedOpenAIServer[] = [];

interface Setup {
  readonly home: string;
  readonly jarvisHome: string;
  readonly env: Record<string, string>;
}

/** A fresh home whose config moves storage to a fresh PostgreSQL database. */
async function setUp(ctx: Parameters<typeof postgres.server>[0]): Promise<Setup> {
  const url = await postgres.server(ctx).createDatabase();
  const home = await mkdtemp(join(tmpdir(), 'jarvis-storage-pg-'));
  homes.push(home);
  const jarvisHome = join(home, '.openjarvis');
  await mkdir(jarvisHome, { recursive: true });
  await writeFile(
    join(jarvisHome, 'config.toml'),
    '[storage]\nbackend = "postgres"\npool_size = 2\n',
  );
  return {
    home,
    jarvisHome,
    env: { HOME: home, OPENJARVIS_HOME: jarvisHome, OPENJARVIS_DATABASE_URL: url },
  };
}

async function startServer(options: ScriptedServerOptions): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAIServer(options);
  servers.push(server);
  return server;
}

function engineFlags(server: ScriptedOpenAIServer): string[] {
  return ['--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
}

function jarvis(setup: Setup, args: readonly string[]): Promise<CliRun> {
  return runCli(args, { env: setup.env, timeoutMs: 30_000 });
}

/** The SQLite files (and their journals) in the OpenJarvis home: none may appear with the PostgreSQL backend. */
async function sqliteFiles(setup: Setup): Promise<string[]> {
  return (await readdir(setup.jarvisHome)).filter((name) =>
    /\.db(-wal|-shm|-journal)?$/.test(name),
  );
}

type Wire = { role: string; content: string | null };

function sentMessages(request: RecordedRequest | undefined): Wire[] {
  return (request?.body as { messages?: Wire[] } | undefined)?.messages ?? [];
}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

// Each case has its own home, database and model server: they run at the same time.
describe.concurrent('the CLI with [storage] backend = "postgres"', () => {
  it('keeps a session across two jarvis ask processes and lists, shows and deletes it', async (ctx) => {
    const setup = await setUp(ctx);
    const server = await startServer({
      script: [{ content: 'Nice to meet you, Ada.' }, { content: 'Your name is Ada.' }],
    });
    const ask = ['ask', ...engineFlags(server), '--agent', 'simple', '--session', 'intro'];

    expect(await jarvis(setup, [...ask, 'My name is Ada.'])).toMatchObject({
      code: 0,
      stdout: 'Nice to meet you, Ada.\n',
    });
    expect(await jarvis(setup, [...ask, 'What is my name?'])).toMatchObject({
      code: 0,
      stdout: 'Your name is Ada.\n',
    });
    // The second process sent the first turn, read back from PostgreSQL, before the new question.
    const second = server.requests.filter((r) => r.path.endsWith('/chat/completions'))[1];
    const contents = sentMessages(second).map((message) => message.content);
    expect(contents).toEqual(
      expect.arrayContaining(['My name is Ada.', 'Nice to meet you, Ada.', 'What is my name?']),
    );
    expect(contents.indexOf('My name is Ada.')).toBeLessThan(contents.indexOf('What is my name?'));

    const listed = await jarvis(setup, ['sessions', 'list', '--json']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'intro' })]);
    const shown = await jarvis(setup, ['sessions', 'show', 'intro']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('What is my name?');
    expect(shown.stdout).toContain('Your name is Ada.');

    expect(await jarvis(setup, ['sessions', 'rm', 'intro', '--yes'])).toMatchObject({ code: 0 });
    const after = await jarvis(setup, ['sessions', 'list', '--json']);
    expect(JSON.parse(after.stdout)).toEqual([]);
    expect(await sqliteFiles(setup)).toEqual([]);
  }, 60_000);

  it('indexes files into memory, searches them from another process and clears them', async (ctx) => {
    const setup = await setUp(ctx);
    const docs = join(setup.home, 'docs');
    await mkdir(docs);
    await writeFile(
      join(docs, 'release.md'),
      '# Release checklist\n\nTag the commit, run the benchmarks, then publish the package.\n',
    );
    await writeFile(join(docs, 'garden.md'), '# Garden\n\nWater the tomatoes every morning.\n');

    const indexed = await jarvis(setup, ['memory', 'index', docs, '--json']);
    expect(indexed).toMatchObject({ code: 0, stderr: '' });
    const found = await jarvis(setup, ['memory', 'search', 'benchmarks', 'publish', '--json']);
    expect(found).toMatchObject({ code: 0, stderr: '' });
    const results = JSON.parse(found.stdout) as { source: string; content: string }[];
    expect(results[0]?.source).toContain('release.md');
    expect(results.some((result) => result.source.includes('garden.md'))).toBe(false);

    const stats = await jarvis(setup, ['memory', 'stats', '--json']);
    expect(stats).toMatchObject({ code: 0 });
    expect(JSON.parse(stats.stdout)).toMatchObject({ backend: 'postgres', exists: true, count: 2 });
    expect(stats.stdout).not.toContain('memory.db');

    expect(await jarvis(setup, ['memory', 'clear', '--yes'])).toMatchObject({ code: 0 });
    const empty = await jarvis(setup, ['memory', 'search', 'benchmarks', '--json']);
    expect(JSON.parse(empty.stdout)).toEqual([]);
    expect(await sqliteFiles(setup)).toEqual([]);
  }, 60_000);

  it('creates a scheduled task, runs it now through its agent and shows it with its log', async (ctx) => {
    const setup = await setUp(ctx);
    const server = await startServer({ script: [{ content: 'Disk is 42% full.' }] });
    const created = await jarvis(setup, [
      'scheduler',
      'create',
      'Check the disk space',
      '--type',
      'interval',
      '--value',
      '3600',
      '--agent',
      'simple',
      '--json',
    ]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const task = JSON.parse(created.stdout) as { id: string; status: string };
    expect(task.status).toBe('active');

    const listed = await jarvis(setup, ['scheduler', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: task.id, prompt: 'Check the disk space' }),
    ]);

    const ran = await jarvis(setup, ['scheduler', 'run-now', task.id, ...engineFlags(server)]);
    expect(ran).toMatchObject({ code: 0 });
    expect(ran.stdout).toContain('Disk is 42% full.');

    const logs = await jarvis(setup, ['scheduler', 'logs', task.id, '--json']);
    expect(logs).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(logs.stdout)).toEqual([
      expect.objectContaining({ result: expect.stringContaining('Disk is 42% full.') }),
    ]);
    expect(await sqliteFiles(setup)).toEqual([]);
  }, 60_000);
});
