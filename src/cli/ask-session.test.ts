import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JarvisError } from '../core/index.js';
import { SqliteSessionStore } from '../sessions/index.js';
import {
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from '../testing/index.js';
import { sessionUsageError } from './ask-session.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';

/** An io on `home` (pipes only); `onStdout` sees stdout as it grows. */
function testIo(
  home: string,
  signal = new AbortController().signal,
  onStdout?: (text: string) => void,
) {
  const stdout = {
    text: '',
    isTTY: false,
    columns: 80,
    write(text: string) {
      stdout.text += text;
      onStdout?.(stdout.text);
    },
  };
  const stderr = {
    text: '',
    isTTY: false,
    columns: 80,
    write(text: string) {
      stderr.text += text;
    },
  };
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  const io: CliIo = {
    stdout,
    stderr,
    stdin,
    env: { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') },
    cwd: home,
    signal,
  };
  return { io, stdout, stderr };
}

function contents(request: RecordedRequest | undefined): string[] {
  const body = request?.body as { messages?: { content: string | null }[] } | undefined;
  return (body?.messages ?? []).map((message) => message.content ?? '');
}

describe('jarvis ask in a session (in process)', () => {
  let home: string;
  let server: ScriptedOpenAIServer | undefined;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'jarvis-ask-session-'));
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(home, { recursive: true, force: true });
  });

  async function start(options: ScriptedServerOptions): Promise<string[]> {
    server = await startScriptedOpenAIServer(options);
    return ['ask', '--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
  }

  function store(): SqliteSessionStore {
    return new SqliteSessionStore({ dbPath: join(home, '.openjarvis', 'sessions.db') });
  }

  it('--continue adds to the most recently updated session, whatever its name', async () => {
    await mkdir(join(home, '.openjarvis'), { recursive: true });
    const seeded = store();
    const older = await seeded.create({ name: 'older' });
    const newer = await seeded.create();
    for (const [session, word, at] of [
      [older, 'apple', 2000],
      [newer, 'pear', 1000],
    ] as const) {
      await seeded.appendTurn(session.id, {
        messages: [
          { role: 'user', content: `remember ${word}` },
          { role: 'assistant', content: `ok ${word}` },
        ],
        agent: 'simple',
        model: 'm',
        engine: 'openai',
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        status: 'completed',
        startedMs: at,
        endedMs: at,
      });
    }
    const latest = await seeded.latest();
    await seeded.close();
    const args = await start({ script: [{ content: 'You said it.' }] });
    const { io, stdout } = testIo(home);
    expect(await runCli([...args, '--no-stream', '--continue', 'What fruit?'], io)).toBe(0);
    expect(stdout.text).toBe('You said it.\n');
    const sent = contents(server?.requests.find((r) => r.path.endsWith('/chat/completions')));
    const word = latest?.id === older.id ? 'apple' : 'pear';
    expect(sent).toContain(`remember ${word}`);
    expect(sent).not.toContain(`remember ${word === 'apple' ? 'pear' : 'apple'}`);
    const check = store();
    expect((await check.find(latest?.id ?? ''))?.turnCount).toBe(2);
    await check.close();
  });

  it('Ctrl-C during a streamed answer stores the turn as cancelled; the next turn goes on cleanly', async () => {
    const args = await start({
      script: [
        { fault: 'stall', afterChunks: 3, reply: { content: 'The capital of France is Paris.' } },
        { content: 'Again: Paris.' },
      ],
    });
    const controller = new AbortController();
    const cancelled = testIo(home, controller.signal, (text) => {
      if (text.length > 0 && !controller.signal.aborted) controller.abort();
    });
    expect(await runCli([...args, '--session', 'trip', 'Capital of France?'], cancelled.io)).toBe(
      130,
    );
    expect(cancelled.stderr.text).toBe('Cancelled.\n');
    const next = testIo(home);
    expect(await runCli([...args, '--session', 'trip', '--json', 'Again?'], next.io)).toBe(0);
    expect(JSON.parse(next.stdout.text)).toMatchObject({
      content: 'Again: Paris.',
      session: { name: 'trip', turn: 2 },
    });
    const check = store();
    const session = await check.find('trip');
    const turns = await check.turns(session?.id ?? '');
    await check.close();
    expect(turns.map((turn) => turn.status)).toEqual(['cancelled', 'completed']);
    expect(turns[0]?.messages[0]).toEqual({ role: 'user', content: 'Capital of France?' });
  });

  it('a name that is not accepted is a usage error before the model is asked', async () => {
    const args = await start({ script: [] });
    const { io, stderr } = testIo(home);
    expect(await runCli([...args, '--session', 'bad name!', 'Hi'], io)).toBe(2);
    expect(stderr.text).toMatch(
      /^error: session name "bad name!" is not accepted; use 1-64 letters/,
    );
    expect(server?.requests).toHaveLength(0);
  });
});

describe('sessionUsageError', () => {
  it('turns a missing session or a bad name into a usage error and leaves other errors alone', () => {
    const missing = new JarvisError({ code: 'session_not_found', message: 'no session' });
    expect(sessionUsageError(missing)).toBeInstanceOf(UsageError);
    const other = new JarvisError({ code: 'closed', message: 'closed' });
    expect(sessionUsageError(other)).toBe(other);
    const plain = new Error('x');
    expect(sessionUsageError(plain)).toBe(plain);
  });
});
