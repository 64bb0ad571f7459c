import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CHAT_DESCRIPTION } from '../../src/cli/chat-command.js';
import { SqliteSessionStore } from '../../src/sessions/index.js';
import {
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from '../../src/testing/index.js';
import { BUILT_CLI, TEST_BUILD } from '../support/cli-build.js';
import { type CliRun, runCli } from '../support/run-cli.js';

const homes: string[] = [];
const servers: ScriptedOpenAIServer[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-chat-'));
  homes.push(home);
  return home;
}

function envFor(home: string): Record<string, string> {
  return { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') };
}

async function startServer(options: ScriptedServerOptions): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAIServer(options);
  servers.push(server);
  return server;
}

function engineFlags(server: ScriptedOpenAIServer): string[] {
  return ['--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
}

/**
 * The CLI entry the tests run: the built program with `jarvis chat` registered (as program.ts does once it
 * registers the command itself; then the program is run as it is).
 */
async function chatEntry(home: string): Promise<string> {
  if (await bundleHasChat()) return BUILT_CLI;
  const dist = (path: string) => JSON.stringify(pathToFileURL(join(TEST_BUILD, 'dist', path)).href);
  const entry = join(home, 'jarvis-chat.mjs');
  await writeFile(
    entry,
    [
      `import { processIo } from ${dist('cli/cli-io.js')};`,
      `import { CliSession } from ${dist('cli/cli-output.js')};`,
      `import { exitCodeOf, formatError } from ${dist('cli/cli-error.js')};`,
      `import { createProgram, runCli } from ${dist('cli/program.js')};`,
      `import { registerChatCommand } from ${dist('cli/chat-command.js')};`,
      'const io = { ...processIo(), session: new CliSession() };',
      'const argv = process.argv.slice(2);',
      'let code = 0;',
      "if (createProgram(io).commands.some((command) => command.name() === 'chat')) code = await runCli(argv, io);",
      'else {',
      '  const program = createProgram(io);',
      '  registerChatCommand(program, io);',
      '  for (const command of program.commands) command.exitOverride();',
      "  try { await program.parseAsync(argv, { from: 'user' }); }",
      '  catch (error) { io.stderr.write(formatError(error, io.session.redactor)); code = exitCodeOf(error, io.signal); }',
      '}',
      'process.exitCode = code;',
      'setTimeout(() => process.exit(code), 3000).unref();',
    ].join('\n'),
  );
  return entry;
}

/** Writes a module that registers `dangerous`, a tool that needs confirmation and leaves a marker file. */
async function writeDangerousToolModule(home: string): Promise<{ module: string; marker: string }> {
  const marker = join(home, 'tool-ran.txt');
  const module = join(home, 'dangerous-tool.mjs');
  const dist = pathToFileURL(join(TEST_BUILD, 'dist', 'index.js')).href;
  await writeFile(
    module,
    [
      `import { writeFileSync } from 'node:fs';`,
      `import { ToolRegistry, defineTool } from ${JSON.stringify(dist)};`,
      `ToolRegistry.registerValue('dangerous', defineTool({`,
      `  name: 'dangerous',`,
      `  description: 'Deletes a file.',`,
      `  requiresConfirmation: true,`,
      `  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },`,
      `  execute: ({ path }) => { writeFileSync(${JSON.stringify(marker)}, path); return 'deleted ' + path; },`,
      `}));`,
    ].join('\n'),
  );
  return { module, marker };
}

/** The model a chat request asked for. */
function requestedModel(request: RecordedRequest): string {
  return (request.body as { model: string }).model;
}

let chatInBundle: Promise<boolean> | undefined;

/** True once the shipped bundle registers `jarvis chat` (its description is in one of its chunks). */
function bundleHasChat(): Promise<boolean> {
  chatInBundle ??= (async () => {
    const folder = join(TEST_BUILD, 'dist', 'bin');
    const files = await readdir(folder);
    const texts = await Promise.all(files.map((file) => readFile(join(folder, file), 'utf8')));
    return texts.some((text) => text.includes(CHAT_DESCRIPTION));
  })();
  return chatInBundle;
}

function modelRequests(server: ScriptedOpenAIServer): RecordedRequest[] {
  return server.requests.filter((request) => request.path.endsWith('/chat/completions'));
}

function messagesOf(request: RecordedRequest | undefined): { role: string; content: string }[] {
  const body = request?.body as { messages?: { role: string; content: string }[] } | undefined;
  return body?.messages ?? [];
}

async function pipedChat(
  server: ScriptedOpenAIServer,
  stdin: string,
  home?: string,
): Promise<CliRun> {
  const folder = home ?? (await tempHome());
  return runCli(['chat', ...engineFlags(server)], {
    cli: await chatEntry(folder),
    env: envFor(folder),
    stdin,
  });
}

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

describe('jarvis chat through pipes', () => {
  it('answers each line in one session, goes on after a failure, and exits 1 at the end', async () => {
    const server = await startServer({
      script: [
        { content: 'Hello Ada.' },
        { content: 'Noted: blue.' },
        { fault: 'status', status: 400 },
        { content: 'Ada, and blue.' },
      ],
    });
    const run = await pipedChat(
      server,
      'My name is Ada.\nMy colour \\\nis blue.\nthis one fails\n"""\nWhat are my name\nand colour?\n"""\n',
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('Hello Ada.\nNoted: blue.\nAda, and blue.\n');
    expect(run.stderr).toMatch(/^error: [^\n]*400[^\n]*\n$/);
    server.assertAllRepliesConsumed();
    const last = messagesOf(modelRequests(server).at(-1)).filter((m) => m.role !== 'system');
    // The failed turn got no answer: the history the model receives skips it.
    expect(last.map((m) => [m.role, m.content])).toEqual([
      ['user', 'My name is Ada.'],
      ['assistant', 'Hello Ada.'],
      ['user', 'My colour \nis blue.'],
      ['assistant', 'Noted: blue.'],
      ['user', 'What are my name\nand colour?'],
    ]);
  });
});

/** `jarvis chat` in a pseudo-terminal (util-linux `script`): keystrokes in, the terminal's output out. */
interface PtyChat {
  /** Waits until `text` appears after what earlier waits consumed, then types `keys`. */
  expectThenType(text: string, keys?: string): Promise<void>;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

async function ptyChat(
  server: ScriptedOpenAIServer,
  home: string,
  extra: readonly string[] = [],
): Promise<PtyChat> {
  const command = [
    process.execPath,
    await chatEntry(home),
    'chat',
    ...engineFlags(server),
    ...extra,
  ]
    .map((word) => `'${word}'`)
    .join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', TERM: 'xterm', NO_COLOR: '1', ...envFor(home) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  let consumed = 0;
  const waiters: (() => void)[] = [];
  const onText = (text: string) => {
    output += text;
    for (const waiter of waiters.splice(0)) waiter();
  };
  child.stdout.setEncoding('utf8').on('data', onText);
  child.stderr.setEncoding('utf8').on('data', onText);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  const found = (text: string) => output.indexOf(text, consumed);
  return {
    output: () => output,
    exited,
    async expectThenType(text, keys) {
      while (found(text) < 0) {
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
        if (child.exitCode !== null && found(text) < 0)
          throw new Error(`chat ended before ${JSON.stringify(text)}: ${JSON.stringify(output)}`);
      }
      consumed = found(text) + text.length;
      if (keys !== undefined) child.stdin.write(keys);
    },
  };
}

const PROMPT = '> ';
const UP = '\u001b[A';

describe('jarvis chat on a terminal', () => {
  it('cancels a streamed answer with Ctrl-C, recalls history with the up arrow, leaves with Ctrl-D', async () => {
    const server = await startServer({
      handler: (request) => {
        const messages = messagesOf(request);
        const last = messages.at(-1)?.content ?? '';
        if (last === 'tell a long story')
          return { fault: 'trickle', intervalMs: 30, text: 'tick ' };
        // A title-setting escape a model might send: the terminal must never get it raw.
        return { content: `answer to: ${last} \u001b]0;pwned\u0007(${messages.length} messages)` };
      },
    });
    const home = await tempHome();
    const chat = await ptyChat(server, home);
    await chat.expectThenType('Chat in a new session · m on openai', '');
    await chat.expectThenType(PROMPT, 'tell a long story\r');
    await chat.expectThenType('tick tick', '\u0003');
    await chat.expectThenType('Cancelled.');
    await chat.expectThenType(PROMPT, UP);
    await chat.expectThenType('tell a long story', '\u0015what now?\r');
    // The cancelled turn holds no answer, so the model gets only the new question (and its system prompt).
    await chat.expectThenType('answer to: what now?');
    expect(chat.output()).not.toContain('\u001b]0;');
    await chat.expectThenType(PROMPT, '\u0003');
    await chat.expectThenType('press Ctrl-C again or Ctrl-D to leave');
    await chat.expectThenType(PROMPT, '\u0004');
    expect(await chat.exited).toBe(0);
    const history = join(home, '.openjarvis', 'chat_history');
    expect(await readFile(history, 'utf8')).toBe('tell a long story\nwhat now?\n');
    expect((await stat(history)).mode & 0o777).toBe(0o600);
    const store = new SqliteSessionStore({ dbPath: join(home, '.openjarvis', 'sessions.db') });
    try {
      const [session] = await store.list();
      const turns = await store.turns(session?.id ?? '');
      expect(turns.map((turn) => turn.status)).toEqual(['cancelled', 'completed']);
    } finally {
      await store.close();
    }
  });

  it('runs every slash command once and asks approvals through the line editor', async () => {
    const server = await startServer({
      handler: (request) => {
        const messages = messagesOf(request);
        const last = messages.at(-1);
        if (last?.content === 'delete it')
          return { toolCalls: [{ name: 'dangerous', arguments: { path: '/tmp/x' } }] };
        if (last?.role === 'tool') return { content: `tool said: ${last.content}` };
        return { content: `answer to: ${last?.content} with ${requestedModel(request)}` };
      },
    });
    const home = await tempHome();
    const { module, marker } = await writeDangerousToolModule(home);
    const chat = await ptyChat(server, home, ['--session', 'trip', '--import', module]);
    await chat.expectThenType('Chat in session ', '');
    await chat.expectThenType('(trip), 0 turns · m on openai');
    await chat.expectThenType(PROMPT, '/help\r');
    await chat.expectThenType('/resume <name|id>');
    await chat.expectThenType(PROMPT, '/tools\r');
    await chat.expectThenType('Tools: none');
    await chat.expectThenType(PROMPT, '/tools calculater\r');
    await chat.expectThenType("Unknown tool 'calculater'");
    await chat.expectThenType("Did you mean 'calculator'?");
    await chat.expectThenType(PROMPT, '/tools dangerous\r');
    await chat.expectThenType('Tools for the next answers: dangerous.');
    await chat.expectThenType(PROMPT, '/agent\r');
    await chat.expectThenType('Agent: orchestrator');
    await chat.expectThenType(PROMPT, '/agent orchestrator\r');
    await chat.expectThenType('Agent for the next answers: orchestrator.');
    await chat.expectThenType(PROMPT, 'delete it\r');
    await chat.expectThenType('Allow dangerous with {"path":"/tmp/x"}? [y/N] ', 'y\r');
    await chat.expectThenType('tool said: deleted /tmp/x');
    await chat.expectThenType(PROMPT, '/model\r');
    await chat.expectThenType('Model: m on openai');
    await chat.expectThenType(PROMPT, '/model m2\r');
    await chat.expectThenType('Model for the next answers: m2 on openai.');
    await chat.expectThenType(PROMPT, 'and now?\r');
    await chat.expectThenType('answer to: and now? with m2');
    await chat.expectThenType(PROMPT, '/export\r');
    await chat.expectThenType('# Session trip');
    await chat.expectThenType(PROMPT, `/export ${join(home, 'trip.md')}\r`);
    await chat.expectThenType('Wrote ');
    await chat.expectThenType(PROMPT, '/new\r');
    await chat.expectThenType('New session');
    await chat.expectThenType(PROMPT, 'fresh start\r');
    await chat.expectThenType('answer to: fresh start');
    await chat.expectThenType(PROMPT, '/sessions\r');
    await chat.expectThenType('* ses_');
    await chat.expectThenType('1 turn · fresh start');
    await chat.expectThenType('(trip) · 2 turns · delete it');
    await chat.expectThenType(PROMPT, '/resume trip\r');
    await chat.expectThenType('Resumed session ');
    await chat.expectThenType(PROMPT, '/clear\r');
    await chat.expectThenType('\u001b[2J');
    await chat.expectThenType(PROMPT, '/exot\r');
    await chat.expectThenType("Unknown command '/exot'");
    await chat.expectThenType("Did you mean '/exit'?");
    await chat.expectThenType(PROMPT, '/exit\r');
    expect(await chat.exited).toBe(0);
    expect(await readFile(marker, 'utf8')).toBe('/tmp/x');
    expect(await readFile(join(home, 'trip.md'), 'utf8')).toMatch(/^# Session trip/);
    const requests = modelRequests(server).map((request) => requestedModel(request));
    expect(requests).toEqual(['m', 'm', 'm2', 'm2']);
  });
});
