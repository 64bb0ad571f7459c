import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminalSafe } from '../../src/core/index.js';
import {
  delayReply,
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from '../../src/testing/index.js';
import { BUILT_CLI, TEST_BUILD } from '../support/cli-build.js';
import { type CliRun, runCli } from '../support/run-cli.js';

/** Per test: the tests of a describe run concurrently, so on a loaded machine each takes longer than alone. */
const CLI_TEST_TIMEOUT_MS = 60_000;
const homes: string[] = [];
const servers: ScriptedOpenAIServer[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

/** A fresh temp folder used as HOME (OPENJARVIS_HOME inside it), removed after the file. */
async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-ask-'));
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

/** Runs `jarvis ask` against the server in a fresh home. */
async function ask(
  server: ScriptedOpenAIServer,
  args: readonly string[],
  options: { stdin?: string; home?: string } = {},
): Promise<CliRun> {
  const home = options.home ?? (await tempHome());
  return runCli(['ask', ...engineFlags(server), ...args], {
    env: envFor(home),
    timeoutMs: CLI_TEST_TIMEOUT_MS,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
}

/** The model requests (chat completions) the server received. */
function modelRequests(server: ScriptedOpenAIServer): RecordedRequest[] {
  return server.requests.filter((request) => request.path.endsWith('/chat/completions'));
}

function bodyOf(request: RecordedRequest | undefined): {
  stream?: boolean;
  messages: { role: string; content: string }[];
} {
  return request?.body as { stream?: boolean; messages: { role: string; content: string }[] };
}

/** A running `jarvis` whose output can be awaited while it runs (for Ctrl-C). */
interface SpawnedCli {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<CliRun>;
  untilStdout(text: string): Promise<void>;
}

function spawnCli(args: readonly string[], env: Record<string, string>): SpawnedCli {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    for (const waiter of waiters.filter((candidate) => stdout.includes(candidate.text)))
      waiter.resolve();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TEST_TIMEOUT_MS);
  const exited = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  child.stdin.end('');
  return {
    child,
    exited,
    untilStdout: (text) =>
      stdout.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ text, resolve })),
  };
}

/** A 127.0.0.1 port nothing listens on (a server took it and closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
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

const ESC = '\u001b';
const BEL = '\u0007';
/** An answer that would set a link and erase a line if a terminal got it raw. */
const HOSTILE_ANSWER = `Read ${ESC}]8;;http://evil.example${BEL}the docs${ESC}]8;;${BEL}${ESC}[2K now.`;
/** A secret-shaped key a server might echo back. */
const LEAKED_KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';

const CALCULATOR_SCRIPT: ScriptedServerOptions = {
  script: [
    {
      toolCalls: [{ name: 'calculator', arguments: { expression: '340*0.15' } }],
      usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
    },
    {
      content: '15% of 340 is 51.',
      usage: { promptTokens: 30, completionTokens: 6, totalTokens: 36 },
    },
  ],
};

// The tests of each describe run concurrently (each has its own server and home): most of a test's time is a
// CLI process starting, so several at once keep both cores busy. What they started is stopped at the end.
afterAll(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

describe('jarvis ask answers', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it.concurrent('runs the seed example: the orchestrator calls the calculator, tokens stream to stdout', async () => {
    const server = await startServer(CALCULATOR_SCRIPT);
    const run = await ask(server, [
      '--agent',
      'orchestrator',
      '--tools',
      'calculator',
      'What is 15% of 340?',
    ]);
    expect(run.stderr).toMatch(
      /^→ calculator \{"expression":"340\*0\.15"\}\n✓ calculator (<1|\d+) ms\n$/,
    );
    expect(run.stdout).toBe('15% of 340 is 51.\n');
    expect(run.code).toBe(0);
    server.assertAllRepliesConsumed();
    const [first, second] = modelRequests(server).map(bodyOf);
    expect(first?.stream).toBe(true);
    expect(second?.stream).toBe(true);
    expect(first?.messages.at(-1)).toMatchObject({ role: 'user', content: 'What is 15% of 340?' });
    expect(second?.messages.find((message) => message.role === 'tool')?.content).toMatch(/^51/);
  });

  it.concurrent('runs a call that a local model writes as text (Qwen3-Coder XML) behind --engine openai --base-url', async () => {
    const call =
      '<tool_call>\n<function=calculator>\n<parameter=expression>\n340*0.15\n</parameter>\n</function>\n</tool_call>';
    const server = await startServer({
      script: [{ content: `Let me work that out.\n${call}` }, { content: '15% of 340 is 51.' }],
    });
    const run = await ask(server, [
      '--model',
      'qwen3-coder-30b-a3b',
      '--agent',
      'orchestrator',
      '--tools',
      'calculator',
      'What is 15% of 340?',
    ]);
    expect(run.stderr).toMatch(/^→ calculator \{"expression":"340\*0\.15"\}\n✓ calculator/);
    // The markup never reaches the user: the text before it streams, the call runs, the answer follows.
    expect(run.stdout).toBe('Let me work that out.\n15% of 340 is 51.\n');
    expect(run.code).toBe(0);
    server.assertAllRepliesConsumed();
    const second = bodyOf(modelRequests(server)[1]);
    expect(second.messages.find((message) => message.role === 'tool')?.content).toMatch(/^51/);
  });

  it.concurrent('answers a plain question with the default agent', async () => {
    const server = await startServer({ script: [{ content: 'The capital of France is Paris.' }] });
    const run = await ask(server, ['What is the capital of France?']);
    expect(run).toMatchObject({ code: 0, stdout: 'The capital of France is Paris.\n', stderr: '' });
    server.assertAllRepliesConsumed();
  });

  it.concurrent('joins the words of an unquoted query, and reads the query from stdin when none is given', async () => {
    const server = await startServer({ script: [{ content: '4' }, { content: 'Paris' }] });
    const words = await ask(server, ['What', 'is', '2+2']);
    const piped = await ask(server, [], { stdin: 'What is the capital of France?\n' });
    expect(words).toMatchObject({ code: 0, stdout: '4\n' });
    expect(piped).toMatchObject({ code: 0, stdout: 'Paris\n' });
    const [first, second] = modelRequests(server).map(bodyOf);
    expect(first?.messages.at(-1)?.content).toBe('What is 2+2');
    expect(second?.messages.at(-1)?.content).toBe('What is the capital of France?');
  });

  it.concurrent('streams tokens to stdout as they arrive (before the answer is complete)', async () => {
    const server = await startServer({
      script: [
        {
          fault: 'stall',
          afterChunks: 4,
          reply: { content: 'The capital of France is Paris.' },
        },
      ],
    });
    const home = await tempHome();
    const cli = spawnCli(
      ['ask', ...engineFlags(server), '--agent', 'orchestrator', 'Capital of France?'],
      envFor(home),
    );
    // The server sent three words and went silent: they can only be on stdout if they were streamed.
    const ended = await Promise.race([cli.untilStdout('The capital of '), cli.exited]);
    expect(ended, 'the CLI ended before it printed the first words').toBeUndefined();
    cli.child.kill('SIGINT');
    const run = await cli.exited;
    expect(run.stdout).toBe('The capital of \n');
    expect(run.stderr).toBe('Cancelled.\n');
    expect(run.code).toBe(130);
    expect(bodyOf(modelRequests(server)[0]).stream).toBe(true);
  });

  it.concurrent('--no-stream prints the whole answer from a non-streamed call; the flags reach the model call', async () => {
    const server = await startServer({ script: [{ content: 'Whole answer.' }] });
    const run = await ask(server, [
      '--agent',
      'orchestrator',
      '--no-stream',
      '--temperature',
      '0.2',
      '--max-tokens',
      '77',
      '--system',
      'Answer in one word.',
      '--no-context',
      'Hi',
    ]);
    expect(run).toMatchObject({ code: 0, stdout: 'Whole answer.\n' });
    const body = modelRequests(server)[0]?.body as Record<string, unknown>;
    expect(body.stream).not.toBe(true);
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(77);
    expect(bodyOf(modelRequests(server)[0]).messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('Answer in one word.'),
    });
  });
});

describe('jarvis ask --json', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it.concurrent('prints the ask_full shape in snake_case with the tool results', async () => {
    const server = await startServer(CALCULATOR_SCRIPT);
    const run = await ask(server, ['--json', '--tools', 'calculator', 'What is 15% of 340?']);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('{\n  "content": ')).toBe(true);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([
      'content',
      'turns',
      'tool_results',
      'usage',
      'model',
      'engine',
      'agent',
      'metadata',
    ]);
    expect(json).toEqual({
      content: '15% of 340 is 51.',
      turns: 2,
      tool_results: [
        {
          tool_name: 'calculator',
          content: expect.stringMatching(/^51/),
          success: true,
          latency_seconds: expect.any(Number),
        },
      ],
      usage: { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 },
      model: 'm',
      engine: 'openai',
      agent: 'orchestrator',
      metadata: expect.objectContaining({
        usage: { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 },
      }),
    });
    expect(modelRequests(server).map((request) => bodyOf(request).stream === true)).toEqual([
      false,
      false,
    ]);
  });

  it.concurrent('keeps max_turns_exceeded when --max-turns 1 and the model keeps calling tools', async () => {
    const server = await startServer({
      script: [{ toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] }],
    });
    const run = await ask(server, ['--json', '--tools', 'calculator', '--max-turns', '1', 'Loop']);
    expect(run.code).toBe(3);
    const json = JSON.parse(run.stdout) as {
      turns: number;
      tool_results: unknown[];
      metadata: Record<string, unknown>;
      stop_reason: string;
    };
    expect(json.turns).toBe(1);
    expect(json.tool_results).toHaveLength(1);
    expect(json.metadata.max_turns_exceeded).toBe(true);
    expect(json.stop_reason).toBe('max_turns');
    expect(run.stderr).toMatch(/^stopped: no final answer after 1 turn \(the turn limit\)/m);
    server.assertAllRepliesConsumed();
  });

  it.concurrent('prints exactly one JSON object with the error when the run fails', async () => {
    const server = await startServer({
      script: [
        { fault: 'status', status: 400, body: { error: { message: `boom ${LEAKED_KEY}` } } },
      ],
    });
    const run = await ask(server, ['--json', 'Hi']);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error.code).toMatch(/^[a-z_]+$/);
    expect(json.error.message).toContain('boom [REDACTED]');
    expect(run.stdout + run.stderr).not.toContain(LEAKED_KEY);
  });
});

describe('jarvis ask stopped before a final answer', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it.concurrent('by the turn limit: no stand-in answer on stdout, the reason on stderr, exit 3', async () => {
    const server = await startServer({
      script: [{ toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] }],
    });
    const run = await ask(server, ['--tools', 'calculator', '--max-turns', '1', 'Loop']);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /\nstopped: no final answer after 1 turn \(the turn limit\); raise it with --max-turns/,
    );
    expect(run.code).toBe(3);
  });

  it.concurrent('by the loop guard: what the model said stays on stdout, the reason goes to stderr, exit 3', async () => {
    const call = { name: 'calculator', arguments: { expression: '1+1' } };
    const server = await startServer({
      script: [1, 2, 3, 4].map(() => ({ content: 'Checking.', toolCalls: [call] })),
    });
    const run = await ask(server, ['--agent', 'orchestrator', '--tools', 'calculator', 'Loop']);
    expect(run.stdout).toBe('Checking.\nChecking.\nChecking.\nChecking.\n');
    expect(run.stderr).toMatch(
      /\nstopped: the model called 'calculator' with the same arguments 4 times in a row .*\(loop guard\)/,
    );
    expect(run.code).toBe(3);
    server.assertAllRepliesConsumed();
  });
});

describe('jarvis ask with hostile model and server text', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it.concurrent('pipes the answer raw but shows tool activity on stderr with escapes made visible', async () => {
    const server = await startServer({
      script: [
        {
          toolCalls: [
            { name: `calc${ESC}[2Kulator`, arguments: { x: 1 } },
            { name: 'calculator', arguments: `{"expression": "${ESC}]0;pwned${BEL} 1+1"}` },
          ],
        },
        { content: HOSTILE_ANSWER },
      ],
      streamChunkChars: 4,
    });
    const run = await ask(server, ['--agent', 'orchestrator', '--tools', 'calculator', 'Hi']);
    expect(run.stdout).toBe(`${HOSTILE_ANSWER}\n`);
    expect(isTerminalSafe(run.stderr)).toBe(true);
    expect(run.stderr).toContain('→ calc^[[2Kulator {"x":1}\n');
    expect(run.stderr).toMatch(/✗ calc\^\[\[2Kulator: /);
    expect(run.code).toBe(0);
  });

  it.concurrent('shows an error quoting the server with escapes made visible and secrets redacted', async () => {
    const server = await startServer({
      script: [
        {
          fault: 'status',
          status: 401,
          body: {
            error: {
              message: `Bad key ${LEAKED_KEY} ${ESC}]8;;http://evil${BEL}click${ESC}]8;;${BEL}`,
            },
          },
        },
      ],
    });
    const run = await ask(server, ['Hi']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: /);
    expect(run.stderr).toContain('Bad key [REDACTED] ^[]8;;http://evil');
    expect(isTerminalSafe(run.stderr)).toBe(true);
    expect(run.stderr).not.toContain(LEAKED_KEY);
  });
});

describe('jarvis ask approval', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it.concurrent('refuses a tool that needs confirmation without a terminal, and says to pass --yes', async () => {
    const server = await startServer({
      script: [
        { toolCalls: [{ name: 'dangerous', arguments: { path: '/tmp/x' } }] },
        { content: 'I was not allowed to delete it.' },
      ],
    });
    const home = await tempHome();
    const { module, marker } = await writeDangerousToolModule(home);
    const run = await ask(server, ['--import', module, '--tools', 'dangerous', 'Delete /tmp/x'], {
      home,
    });
    expect(run.stderr).toContain('→ dangerous {"path":"/tmp/x"}\n');
    expect(run.stderr).toMatch(/✗ dangerous: refused: .*pass --yes to allow it\n/);
    expect(run.stdout).toBe('I was not allowed to delete it.\n');
    expect(run.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const toolMessage = bodyOf(modelRequests(server)[1]).messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toMatch(/denied/);
  });

  it.concurrent('--yes approves it', async () => {
    const server = await startServer({
      script: [
        { toolCalls: [{ name: 'dangerous', arguments: { path: '/tmp/x' } }] },
        { content: 'Deleted.' },
      ],
    });
    const home = await tempHome();
    const { module, marker } = await writeDangerousToolModule(home);
    const run = await ask(server, ['--yes', '--import', module, '--tools', 'dangerous', 'Delete'], {
      home,
    });
    expect(run.stderr).toMatch(/✓ dangerous (<1|\d+) ms\n/);
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted.\n' });
    expect(existsSync(marker)).toBe(true);
  });
});

describe('jarvis ask Ctrl-C', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it.concurrent('cancels a waiting model call: Cancelled. and exit code 130', async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await startServer({
      handler: () => {
        arrived();
        return delayReply(30_000, { content: 'Too late.' });
      },
    });
    const home = await tempHome();
    const cli = spawnCli(['ask', ...engineFlags(server), 'Take your time'], envFor(home));
    const ended = await Promise.race([requestArrived.then(() => undefined), cli.exited]);
    expect(ended, 'the CLI ended before its request arrived').toBeUndefined();
    cli.child.kill('SIGINT');
    const run = await cli.exited;
    expect(run).toMatchObject({ code: 130, stdout: '', stderr: 'Cancelled.\n' });
  });

  it.concurrent('SIGTERM cancels it too, with exit code 143', async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await startServer({
      handler: () => {
        arrived();
        return delayReply(30_000, { content: 'Too late.' });
      },
    });
    const cli = spawnCli(
      ['ask', ...engineFlags(server), 'Take your time'],
      envFor(await tempHome()),
    );
    const ended = await Promise.race([requestArrived.then(() => undefined), cli.exited]);
    expect(ended, 'the CLI ended before its request arrived').toBeUndefined();
    cli.child.kill('SIGTERM');
    const run = await cli.exited;
    expect(run).toMatchObject({ code: 143, stdout: '', stderr: 'Cancelled.\n' });
  });
});

describe('jarvis ask errors', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let server: ScriptedOpenAIServer;

  beforeAll(async () => {
    // Never answers: no error case may reach the model.
    server = await startScriptedOpenAIServer({ script: [] });
  });

  afterAll(async () => {
    expect(modelRequests(server)).toEqual([]);
    await server.close();
  });

  const usageErrors: readonly [string, readonly string[], string | undefined, RegExp][] = [
    [
      'an unknown agent',
      ['--agent', 'nope', 'Hi'],
      undefined,
      /^error: Unknown agent 'nope'\. Available: .*orchestrator.*simple/,
    ],
    [
      'an unknown tool',
      ['--tools', 'calculator,nope', 'Hi'],
      undefined,
      /^error: Unknown tool 'nope'\. Available: .*calculator.*think/,
    ],
    ['an empty query', [''], undefined, /^error: The question is empty/],
    ['empty stdin', [], '  \n', /^error: stdin was empty/],
    [
      '--max-turns 0',
      ['--max-turns', '0', 'Hi'],
      undefined,
      /^error: --max-turns must be a whole number from 1 to 1000 \(got '0'\)/,
    ],
    [
      '--max-turns abc',
      ['--max-turns', 'abc', 'Hi'],
      undefined,
      /^error: --max-turns must be a whole number .*\(got 'abc'\)/,
    ],
    [
      '--temperature 5',
      ['--temperature', '5', 'Hi'],
      undefined,
      /^error: --temperature must be a number from 0 to 2 \(got '5'\)/,
    ],
    [
      '--max-tokens 1.5',
      ['--max-tokens', '1.5', 'Hi'],
      undefined,
      /^error: --max-tokens must be a whole number/,
    ],
    [
      '--tools with an empty name',
      ['--tools', 'calculator,,think', 'Hi'],
      undefined,
      /^error: --tools takes comma-separated names/,
    ],
  ];

  it.concurrent.each(usageErrors)(
    'exits 2 on %s, naming the problem',
    async (_name, args, stdin, message) => {
      const run = await ask(server, args, stdin === undefined ? {} : { stdin });
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
      expect(run.code).toBe(2);
    },
  );

  it.concurrent('exits 2 on a corrupted config, naming the file and line', async () => {
    const home = await tempHome();
    await mkdir(join(home, '.openjarvis'));
    const config = join(home, '.openjarvis', 'config.toml');
    await writeFile(config, '[agent]\nmax_turns = "many"\n');
    const invalid = await ask(server, ['Hi'], { home });
    await writeFile(config, '[agent\nmax_turns = 3\n');
    const broken = await ask(server, ['Hi'], { home });
    expect(invalid.stderr).toContain(`${config}:2: agent.max_turns`);
    expect(broken.stderr).toContain(`${config}:1`);
    expect([invalid.code, broken.code]).toEqual([2, 2]);
  });

  it.concurrent('exits 2 when the file named by --config does not exist', async () => {
    const home = await tempHome();
    const missing = join(home, 'nope.toml');
    const run = await ask(server, ['--config', missing, 'Hi'], { home });
    expect(run.stderr).toContain(missing);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });

  it.concurrent('--json prints a usage error as one JSON object too', async () => {
    const run = await ask(server, ['--json', '--agent', 'nope', 'Hi']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: 'unknown_agent', message: expect.stringMatching(/^Unknown agent 'nope'/) },
    });
    const flag = await ask(server, ['--json', '--max-turns', '0', 'Hi']);
    expect(flag.code).toBe(2);
    expect(JSON.parse(flag.stdout)).toEqual({
      error: { code: 'usage', message: expect.stringContaining('--max-turns must be') },
    });
  });

  it.concurrent('shows unknown config keys in warnings with their escapes made visible', async () => {
    const home = await tempHome();
    await mkdir(join(home, '.openjarvis'));
    const config = join(home, '.openjarvis', 'config.toml');
    await writeFile(config, '[agent]\n"max\\u001b[2K_turnz" = 3\n');
    const run = await ask(server, ['--agent', 'nope', 'Hi'], { home });
    expect(run.stderr).toContain(`warning: ${config}:2: unknown key 'max^[[2K_turnz'`);
    expect(run.stderr).not.toContain(ESC);
  });

  it.concurrent('exits 1 with advice when the engine cannot be reached', async () => {
    const port = await closedPort();
    const home = await tempHome();
    const run = await runCli(
      ['ask', '--engine', 'ollama', '--base-url', `http://127.0.0.1:${port}`, 'Hi'],
      { env: envFor(home), timeoutMs: CLI_TEST_TIMEOUT_MS },
    );
    expect(run.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(run.stderr).toContain('connection refused');
    expect(run.stderr).toContain('`ollama serve`');
    expect(run.stderr).toContain('--base-url');
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
  });
});
