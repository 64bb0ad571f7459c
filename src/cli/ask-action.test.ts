import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../core/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../testing/index.js';
import { defineTool } from '../tools/index.js';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';

const TOOL = 'ask_action_test_delete';

function capture(isTTY: boolean) {
  const stream = {
    text: '',
    isTTY,
    columns: 80,
    write(text: string) {
      stream.text += text;
    },
  };
  return stream;
}

/** An io whose stdin and stderr are "terminals": the approval prompt is asked there. */
function terminalIo(home: string, answer: string) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  stdin.write(answer);
  const stdout = capture(false);
  const stderr = capture(true);
  const io: CliIo = {
    stdout,
    stderr,
    stdin,
    env: { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') },
    cwd: home,
    signal: new AbortController().signal,
  };
  return { io, stdout, stderr };
}

describe('jarvis ask on a terminal (in process)', () => {
  let home: string;
  let server: ScriptedOpenAIServer;
  const deleted: string[] = [];

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'jarvis-ask-action-'));
    deleted.length = 0;
    const tool = defineTool({
      name: TOOL,
      description: 'Deletes a file.',
      requiresConfirmation: true,
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      execute: (args: { path: string }) => {
        deleted.push(args.path);
        return 'deleted';
      },
    });
    ToolRegistry.registerValue(TOOL, () => tool);
    server = await startScriptedOpenAIServer({
      script: [
        { toolCalls: [{ name: TOOL, arguments: { path: '/tmp/x' } }] },
        { content: 'Done.' },
      ],
    });
  });

  afterEach(async () => {
    ToolRegistry.delete(TOOL);
    await server.close();
    await rm(home, { recursive: true, force: true });
  });

  const args = () => [
    'ask',
    '--engine',
    'openai',
    '--base-url',
    server.baseUrl,
    '--model',
    'm',
    '--tools',
    TOOL,
    'Delete /tmp/x',
  ];

  it('asks before a tool that needs confirmation, runs it on yes, and replaces the spinner', async () => {
    const { io, stdout, stderr } = terminalIo(home, 'y\n');
    expect(await runCli(args(), io)).toBe(0);
    expect(deleted).toEqual(['/tmp/x']);
    expect(stdout.text).toBe('Done.\n');
    const call = `${TOOL} {"path":"/tmp/x"}`;
    expect(stderr.text).toContain(`\r\x1b[2K⠋ ${call} 0.0s`);
    expect(stderr.text).toContain(`Allow ${TOOL} with {"path":"/tmp/x"}? [y/N] `);
    expect(stderr.text).toMatch(
      new RegExp(`\\r\\x1b\\[2K✓ ${TOOL} \\{"path":"/tmp/x"\\} (<1|\\d+) ms\\n$`),
    );
    server.assertAllRepliesConsumed();
  });

  it('does not run the tool when the answer is no', async () => {
    const { io, stdout, stderr } = terminalIo(home, 'n\n');
    expect(await runCli(args(), io)).toBe(0);
    expect(deleted).toEqual([]);
    expect(stdout.text).toBe('Done.\n');
    expect(stderr.text).toContain(
      `✗ ${TOOL} {"path":"/tmp/x"}: Tool '${TOOL}' execution denied by user.`,
    );
    expect(stderr.text).not.toContain('--yes');
  });
});

describe('jarvis ask answers on a terminal (in process)', () => {
  let home: string;
  let server: ScriptedOpenAIServer;
  const ANSWER = 'Go \u001b]8;;http://evil.example\u0007here\u001b]8;;\u0007\u001b[2K now.';

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'jarvis-ask-tty-'));
    server = await startScriptedOpenAIServer({
      script: [{ content: ANSWER }, { content: ANSWER }],
      streamChunkChars: 3,
    });
  });

  afterEach(async () => {
    await server.close();
    await rm(home, { recursive: true, force: true });
  });

  it.each([
    ['streamed', []],
    ['whole', ['--no-stream']],
  ])('shows the %s answer with escape sequences made visible', async (_name, flags) => {
    const { io, stdout } = terminalIo(home, '');
    const terminalStdout = Object.assign(stdout, { isTTY: true });
    const args = ['ask', '--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
    expect(await runCli([...args, ...flags, 'Hi'], { ...io, stdout: terminalStdout })).toBe(0);
    expect(stdout.text).toBe('Go ^[]8;;http://evil.example\\u{7}here^[]8;;\\u{7}^[[2K now.\n');
  });
});
