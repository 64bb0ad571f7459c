import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../testing/index.js';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';

// `jarvis mcp serve` in this process over a fake stdin/stdout: every stdout line must be a JSON-RPC message.

let home: string;
let server: ScriptedOpenAIServer | undefined;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'jarvis-cli-mcp-'));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(home, { recursive: true, force: true });
});

interface JsonRpcMessage {
  readonly id?: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** Starts `jarvis mcp serve <args>` on a fake io; `call` sends a request and waits for its answer. */
function serve(args: readonly string[]) {
  const stdin = new PassThrough();
  let stdout = '';
  let stderr = '';
  let onOutput: () => void = () => undefined;
  const io: CliIo = {
    stdout: {
      write: (text) => {
        stdout += text;
        onOutput();
      },
      isTTY: false,
      columns: 80,
    },
    stderr: {
      write: (text) => {
        stderr += text;
      },
      isTTY: false,
      columns: 80,
    },
    stdin,
    env: { OPENJARVIS_HOME: home, HOME: home },
    cwd: home,
    signal: new AbortController().signal,
  };
  const exit = runCli(['mcp', 'serve', ...args], io);
  const messages = (): JsonRpcMessage[] =>
    stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as JsonRpcMessage);
  let nextId = 1;
  const call = (method: string, params: Record<string, unknown> = {}) => {
    const id = nextId++;
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise<JsonRpcMessage>((resolve) => {
      onOutput = () => {
        const answer = messages().find((message) => message.id === id);
        if (answer !== undefined) resolve(answer);
      };
      onOutput();
    });
  };
  const initialize = async () => {
    await call('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  };
  const end = async () => {
    stdin.end();
    return { code: await exit, stdout, stderr, messages: messages() };
  };
  return { call, initialize, end, exit, stderr: () => stderr };
}

describe('jarvis mcp serve (stdio, in process)', () => {
  it('serves the named tools, runs calls, and writes nothing but protocol messages to stdout', async () => {
    const session = serve(['--tools', 'calculator,think']);
    await session.initialize();
    const listed = await session.call('tools/list');
    const tools = listed.result?.tools as { name: string; inputSchema: unknown }[];
    expect(tools.map((tool) => tool.name)).toEqual(['calculator', 'think']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['expression'] });
    const answer = await session.call('tools/call', {
      name: 'calculator',
      arguments: { expression: 'sqrt(144) + 3**2' },
    });
    expect(answer.result).toEqual({ content: [{ type: 'text', text: '21.0' }], isError: false });
    const invalid = await session.call('tools/call', { name: 'calculator', arguments: {} });
    expect(invalid.result?.isError).toBe(true);

    const ended = await session.end();
    expect(ended.code).toBe(0);
    expect(ended.messages).toHaveLength(4); // every stdout line parsed as JSON-RPC
    expect(ended.stderr).toContain('Serving 2 tool(s) [calculator, think] over MCP on stdio');
  });

  it('scheduler tools are backed by the system scheduler (the task lands in scheduler.db)', async () => {
    const session = serve(['--tools', 'schedule_task,list_scheduled_tasks']);
    await session.initialize();
    const created = await session.call('tools/call', {
      name: 'schedule_task',
      arguments: { prompt: 'water the plants', schedule_type: 'interval', schedule_value: '3600' },
    });
    const content = created.result?.content as { text: string }[];
    const { task_id: taskId } = JSON.parse(content[0]?.text ?? '{}') as { task_id: string };
    expect((await session.end()).code).toBe(0);

    let listed = '';
    const io: CliIo = {
      stdout: {
        write: (text) => {
          listed += text;
        },
        isTTY: false,
        columns: 80,
      },
      stderr: { write: () => undefined, isTTY: false, columns: 80 },
      stdin: new PassThrough(),
      env: { OPENJARVIS_HOME: home },
      cwd: home,
      signal: new AbortController().signal,
    };
    expect(await runCli(['scheduler', 'list', '--json'], io)).toBe(0);
    expect(JSON.parse(listed)).toMatchObject([{ id: taskId, prompt: 'water the plants' }]);
  });

  it('resolves an engine only for tools that need one: `llm` answers through it', async () => {
    server = await startScriptedOpenAIServer({ handler: () => ({ content: 'a haiku' }) });
    const engine = ['--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
    const plain = serve(['--tools', 'think', ...engine]);
    await plain.initialize();
    expect((await plain.end()).code).toBe(0);
    expect(server.requests).toEqual([]); // the engine was never contacted

    const session = serve(['--tools', 'llm', ...engine]);
    await session.initialize();
    const answer = await session.call('tools/call', {
      name: 'llm',
      arguments: { prompt: 'write a haiku' },
    });
    expect(answer.result).toMatchObject({ content: [{ type: 'text', text: 'a haiku' }] });
    expect((await session.end()).code).toBe(0);
  });

  it('without --tools serves every registered tool, leaving out llm when no engine is found', async () => {
    const session = serve(['--engine', 'openai', '--base-url', 'http://127.0.0.1:9/v1']);
    await session.initialize();
    const listed = (await session.call('tools/list')).result?.tools as { name: string }[];
    const names = listed.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['calculator', 'think', 'schedule_task']));
    expect(names).not.toContain('llm');
    const ended = await session.end();
    expect(ended.code).toBe(0);
    expect(ended.stderr).toMatch(/^warning: not serving llm: no engine \(.+\); pass --engine/m);
  });

  it('refuses unknown tools and bad ports with exit 2', async () => {
    const unknown = serve(['--tools', 'calculator,nope']);
    const ended = await unknown.end();
    expect(ended.code).toBe(2);
    expect(ended.stdout).toBe('');
    expect(ended.stderr).toContain("error: Unknown tool 'nope'. Available: calculator");
    const port = await serve(['--http', '70000']).end();
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--http must be a whole number from 0 to 65535');
  });
});
