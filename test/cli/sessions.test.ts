import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from '../../src/testing/index.js';
import { BUILT_CLI } from '../support/cli-build.js';
import { type CliRun, runCli } from '../support/run-cli.js';

const homes: string[] = [];
const servers: ScriptedOpenAIServer[] = [];

async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-sessions-'));
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

function ask(server: ScriptedOpenAIServer, home: string, args: readonly string[]): Promise<CliRun> {
  return runCli(
    ['ask', '--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm', ...args],
    { env: envFor(home) },
  );
}

function jarvis(home: string, args: readonly string[]): Promise<CliRun> {
  return runCli(args, { env: envFor(home) });
}

type Wire = { role: string; content: string | null; tool_calls?: unknown[] };

function sentMessages(request: RecordedRequest | undefined): Wire[] {
  return (request?.body as { messages?: Wire[] } | undefined)?.messages ?? [];
}

function modelRequests(server: ScriptedOpenAIServer): RecordedRequest[] {
  return server.requests.filter((request) => request.path.endsWith('/chat/completions'));
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

describe('jarvis ask --session / --continue', () => {
  it('continues cleanly after the process is killed mid-turn: the cut turn is not there', async () => {
    const server = await startServer({
      script: [
        { content: 'First answer.' },
        { fault: 'trickle', intervalMs: 40, text: 'partial ' },
        { content: 'After the crash.' },
      ],
    });
    const home = await tempHome();
    expect((await ask(server, home, ['--session', 'crash', 'First question?'])).code).toBe(0);
    const args = ['ask', '--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
    const child = spawn(process.execPath, [BUILT_CLI, ...args, '--session', 'crash', 'Cut?'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...envFor(home) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) => {
      let seen = '';
      child.stdout.on('data', (data: Buffer) => {
        seen += data.toString();
        if (seen.includes('partial partial')) resolve();
      });
    });
    child.kill('SIGKILL');
    await exited;
    const third = await ask(server, home, ['--session', 'crash', 'Still there?']);
    expect(third).toMatchObject({ code: 0, stdout: 'After the crash.\n' });
    expect(sentMessages(modelRequests(server)[2]).map((m) => m.content)).toEqual([
      'First question?',
      'First answer.',
      'Still there?',
    ]);
    const shown = JSON.parse((await jarvis(home, ['sessions', 'show', 'crash', '--json'])).stdout);
    expect(JSON.stringify(shown)).not.toContain('Cut?');
    expect(JSON.stringify(shown)).toContain('Still there?');
  }, 60_000);

  it('adds each question to the named session: the second request holds the first turn; --json reports it', async () => {
    const server = await startServer({
      script: [{ content: 'Hello Ana.' }, { content: 'Your name is Ana.' }],
    });
    const home = await tempHome();
    const first = await ask(server, home, ['--session', 'intro', 'My name is Ana.']);
    expect(first).toMatchObject({ code: 0, stdout: 'Hello Ana.\n', stderr: '' });
    const second = await ask(server, home, ['--session', 'intro', '--json', 'What is my name?']);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    const json = JSON.parse(second.stdout);
    expect(json.content).toBe('Your name is Ana.');
    expect(json.session).toEqual({
      id: expect.stringMatching(/^ses_[0-9a-f]{16}$/),
      name: 'intro',
      turn: 2,
    });
    expect(json.history).toMatchObject({ kept_turns: 1, folded_turns: 0, summary_updated: false });
    for (const key of ['prompt_tokens', 'context_tokens'])
      expect(json.history[key] === null || typeof json.history[key] === 'number').toBe(true);
    const sent = sentMessages(modelRequests(server)[1]).filter((m) => m.role !== 'system');
    expect(sent.map((m) => [m.role, m.content])).toEqual([
      ['user', 'My name is Ana.'],
      ['assistant', 'Hello Ana.'],
      ['user', 'What is my name?'],
    ]);
    server.assertAllRepliesConsumed();
  });

  it('--continue starts a session when there is none (saying so), then adds to the latest one', async () => {
    const server = await startServer({ script: [{ content: 'One.' }, { content: 'Two.' }] });
    const home = await tempHome();
    const first = await ask(server, home, ['--continue', 'Count with me']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('One.\n');
    expect(first.stderr).toMatch(/^No session yet: this question starts a new one/);
    const second = await ask(server, home, ['-c', '--json', 'Next']);
    expect(JSON.parse(second.stdout).session).toMatchObject({ name: null, turn: 2 });
    expect(sentMessages(modelRequests(server)[1]).some((m) => m.content === 'One.')).toBe(true);
  });

  it('without the flags stores nothing; an unknown id or both flags are usage errors', async () => {
    const server = await startServer({ script: [{ content: 'Plain.' }] });
    const home = await tempHome();
    expect(await ask(server, home, ['Hi'])).toMatchObject({ code: 0, stdout: 'Plain.\n' });
    expect(existsSync(join(home, '.openjarvis', 'sessions.db'))).toBe(false);
    const unknown = await ask(server, home, ['--session', 'ses_0000000000000000', 'Hi']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no session 'ses_0000000000000000'.*jarvis sessions list/);
    const both = await ask(server, home, ['--session', 'a', '--continue', 'Hi']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--session and --continue/);
    expect(modelRequests(server)).toHaveLength(1);
  });
});

describe('jarvis sessions', () => {
  it('lists, shows, exports and removes a session with a tool call', async () => {
    const server = await startServer({
      script: [
        { toolCalls: [{ name: 'calculator', arguments: { expression: '340*0.15' } }] },
        {
          content: '15% of 340 is 51.',
          usage: { promptTokens: 30, completionTokens: 6, totalTokens: 36 },
        },
      ],
    });
    const home = await tempHome();
    const asked = await ask(server, home, [
      '--session',
      'maths',
      '--agent',
      'orchestrator',
      '--tools',
      'calculator',
      'What is 15% of 340?',
    ]);
    expect(asked.code).toBe(0);
    expect(asked.stderr).toMatch(/^→ calculator \{"expression":"340\*0\.15"\}\n✓ calculator/);
    expect(asked.stdout).toBe('15% of 340 is 51.\n');

    const list = await jarvis(home, ['sessions', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+NAME\s+TURNS\s+UPDATED\s+TITLE\n/);
    expect(list.stdout).toMatch(/ses_[0-9a-f]{16}\s+maths\s+1\s+\S+\s+What is 15% of 340\?\n$/);

    const show = await jarvis(home, ['sessions', 'show', 'maths']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('you: What is 15% of 340?');
    expect(show.stdout).toContain('→ calculator {"expression":"340*0.15"}');
    expect(show.stdout).toMatch(/↳ 51/);
    expect(show.stdout).toContain('jarvis: 15% of 340 is 51.');
    expect(show.stdout).toMatch(/Turn 1 · .* · orchestrator · m on openai/);

    const exported = await jarvis(home, ['sessions', 'export', 'maths', '--format', 'json']);
    const document = JSON.parse(exported.stdout);
    expect(document).toMatchObject({
      format: 'openjarvis.session',
      version: 1,
      session: { name: 'maths', turns: 1, summary: null },
    });
    const [turn] = document.turns;
    expect(turn).toMatchObject({
      turn: 1,
      status: 'completed',
      agent: 'orchestrator',
      engine: 'openai',
    });
    expect(turn.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(turn.messages[1].tool_calls[0]).toMatchObject({ name: 'calculator' });
    expect(turn.messages[2].tool_call_id).toBe(turn.messages[1].tool_calls[0].id);
    const md = join(home, 'maths.md');
    const written = await jarvis(home, [
      'sessions',
      'export',
      'maths',
      '--format',
      'md',
      '--output',
      md,
    ]);
    expect(written.code).toBe(0);
    const markdown = await readFile(md, 'utf8');
    expect(markdown).toMatch(/^# Session maths \(ses_[0-9a-f]{16}\)\n/);
    expect(markdown).toContain('**You:**\n\nWhat is 15% of 340?');
    expect(markdown).toContain(
      '**Tool call** `calculator`:\n\n```json\n{"expression":"340*0.15"}\n```',
    );
    expect(markdown).toContain('**Jarvis:**\n\n15% of 340 is 51.');

    const refused = await jarvis(home, ['sessions', 'rm', 'maths']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no terminal to ask.*--yes/);
    const removed = await jarvis(home, ['sessions', 'rm', 'maths', '--yes']);
    expect(removed).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Deleted session ses_\w+ \(maths\) and its 1 turn\.\n$/),
    });
    const after = await jarvis(home, ['sessions', 'list', '--json']);
    expect(JSON.parse(after.stdout)).toEqual([]);
  });

  it('a session that is not there is a usage error naming `jarvis sessions list`', async () => {
    const home = await tempHome();
    const show = await jarvis(home, ['sessions', 'show', 'nope']);
    expect(show.code).toBe(2);
    expect(show.stderr).toBe(
      "error: no session 'nope'; `jarvis sessions list` shows the sessions\n",
    );
  });
});
