import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentError,
  Conversation,
  createAgentContext,
  EventBus,
  type JarvisEvent,
} from '../../core/index.js';
import {
  type OpenClawHttpRuntime,
  type OpenClawRuntimeBehaviour,
  startOpenClawHttpRuntime,
  writeOpenClawRuntimeScript,
} from '../../testing/openclaw-runtime.js';
import { ScriptedTool } from '../../testing/scripted-tool.js';
import { CalculatorTool } from '../../tools/index.js';
import { MAX_TURNS_MESSAGE } from '../agent-messages.js';
import { OpenClawAgent, type OpenClawAgentOptions } from './openclaw-agent.js';
import { createOpenClawMessage, type OpenClawMessage } from './protocol.js';
import type { SubprocessTransport } from './subprocess-transport.js';
import type { OpenClawTransport } from './transport.js';

let directory = '';
const runtimes: OpenClawHttpRuntime[] = [];
const agents: OpenClawAgent[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'openclaw-agent-'));
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const calculatorThenAnswer: OpenClawRuntimeBehaviour = {
  steps: [
    { toolCall: 'calculator', arguments: { expression: '2+2' } },
    { answer: 'The answer is {result}.' },
  ],
};

function recordingBus(): EventBus {
  return new EventBus({ recordHistory: true });
}

function summary(bus: EventBus): Array<[string, unknown]> {
  return bus.history.map((event: JarvisEvent) => [event.type, event.data]);
}

async function httpAgent(
  behaviour: OpenClawRuntimeBehaviour,
  options: Partial<OpenClawAgentOptions> = {},
): Promise<{ agent: OpenClawAgent; runtime: OpenClawHttpRuntime }> {
  const runtime = await startOpenClawHttpRuntime(behaviour);
  runtimes.push(runtime);
  const agent = new OpenClawAgent({ host: runtime.url, tools: [new CalculatorTool()], ...options });
  agents.push(agent);
  return { agent, runtime };
}

async function subprocessAgent(
  behaviour: OpenClawRuntimeBehaviour,
  options: Partial<OpenClawAgentOptions> = {},
): Promise<OpenClawAgent> {
  const scriptPath = await writeOpenClawRuntimeScript(directory, behaviour);
  const agent = new OpenClawAgent({
    mode: 'subprocess',
    scriptPath,
    tools: [new CalculatorTool()],
    ...options,
  });
  agents.push(agent);
  return agent;
}

async function runFailure(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AgentError);
    return error as AgentError;
  }
  throw new Error('expected the run to fail');
}

describe('OpenClawAgent over HTTP', () => {
  it('executes the runtime tool call locally and returns the final answer', async () => {
    const bus = recordingBus();
    const { agent, runtime } = await httpAgent(calculatorThenAnswer, { bus, model: 'qwen3:8b' });
    const context = createAgentContext({
      conversation: new Conversation({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi', name: 'ana' },
        ],
      }),
    });
    const result = await agent.run('What is 2+2?', context);
    expect(result).toMatchObject({ content: 'The answer is 4.', turns: 2, metadata: {} });
    expect(result.toolResults).toMatchObject([
      { toolName: 'calculator', content: '4', success: true },
    ]);
    const [query, toolResult] = runtime.received;
    expect(query).toMatchObject({
      type: 'query',
      content: 'What is 2+2?',
      metadata: {
        model: 'qwen3:8b',
        conversation: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      },
    });
    expect(toolResult).toMatchObject({
      type: 'tool_result',
      tool_name: 'calculator',
      tool_result: '4',
      metadata: { success: true },
    });
    expect(runtime.received).toHaveLength(2);
    const events = summary(bus);
    expect(events.map(([type]) => type)).toEqual([
      'agent_turn_start',
      'tool_call_start',
      'tool_call_end',
      'agent_turn_end',
    ]);
    expect(events[0]?.[1]).toEqual({ agent: 'openclaw', input: 'What is 2+2?' });
    const callId = (toolResult?.metadata as { tool_call_id: string } | undefined)?.tool_call_id;
    expect(events[1]?.[1]).toEqual({
      toolName: 'calculator',
      callId,
      arguments: { expression: '2+2' },
    });
    expect(events[2]?.[1]).toMatchObject({ toolName: 'calculator', callId, success: true });
    expect(events[3]?.[1]).toEqual({ agent: 'openclaw', turns: 2 });
  });

  it('sends an empty conversation without context and reads the agent id and defaults', async () => {
    const { agent, runtime } = await httpAgent({ steps: [{ answer: '{metadata}' }] });
    const result = await agent.run('hi');
    expect(JSON.parse(result.content)).toEqual({ model: '', conversation: [] });
    expect(runtime.received).toHaveLength(1);
    expect(agent.agentId).toBe('openclaw');
    expect(agent.maxTurns).toBe(10);
  });

  it('executes only the run tools: unknown and excluded tools come back to the runtime as failures', async () => {
    const bus = recordingBus();
    const spy = new ScriptedTool({ name: 'file_read', steps: [] });
    const { agent, runtime } = await httpAgent(
      {
        steps: [
          { toolCall: 'file_read', arguments: { path: '/etc/passwd' } },
          { toolCall: 'rm_everything' },
          { answer: 'last: {result}' },
        ],
      },
      { bus, tools: [new CalculatorTool(), spy] },
    );
    const context = createAgentContext({ tools: ['calculator'] });
    const result = await agent.run('read it', context);
    expect(spy.calls).toEqual([]);
    expect(result.content).toBe('last: Unknown tool: rm_everything (available tools: calculator)');
    expect(
      result.toolResults.map((toolResult) => [toolResult.success, toolResult.content]),
    ).toEqual([
      [false, 'Unknown tool: file_read (available tools: calculator)'],
      [false, 'Unknown tool: rm_everything (available tools: calculator)'],
    ]);
    expect(runtime.received.slice(1).map((message) => message.metadata)).toMatchObject([
      { success: false, error_code: 'unknown_tool' },
      { success: false, error_code: 'unknown_tool' },
    ]);
    const types = bus.history.map((event) => event.type);
    expect(types.filter((type) => type === 'tool_call_start')).toHaveLength(2);
    expect(types.filter((type) => type === 'tool_call_end')).toHaveLength(2);
  });

  it('stops at maxTurns while the runtime still asks for tools', async () => {
    const bus = recordingBus();
    const steps = Array.from({ length: 12 }, () => ({
      toolCall: 'calculator',
      arguments: { expression: '1+1' },
    }));
    const { agent, runtime } = await httpAgent({ steps }, { bus, maxTurns: 3 });
    const result = await agent.run('loop');
    expect(result).toMatchObject({
      content: MAX_TURNS_MESSAGE,
      turns: 3,
      metadata: { max_turns_exceeded: true },
    });
    expect(result.toolResults).toHaveLength(2);
    expect(runtime.received.map((message) => message.type)).toEqual([
      'query',
      'tool_result',
      'tool_result',
    ]);
    expect(bus.history.at(-1)?.data).toEqual({
      agent: 'openclaw',
      turns: 3,
      maxTurnsExceeded: true,
    });
  });

  it('turns an error reply into AgentError with the partial result', async () => {
    const bus = recordingBus();
    const { agent } = await httpAgent(
      {
        steps: [
          { toolCall: 'calculator', arguments: { expression: '3*3' } },
          { error: 'model overloaded' },
        ],
      },
      { bus },
    );
    const error = await runFailure(agent.run('x'));
    expect(error.code).toBe('agent_runtime_failed');
    expect(error.agentId).toBe('openclaw');
    expect(error.message).toBe('OpenClaw runtime reported an error: model overloaded');
    expect(error.partialResult).toMatchObject({ turns: 2, toolResults: [{ content: '9' }] });
    expect(bus.history.at(-1)?.data).toEqual({
      agent: 'openclaw',
      turns: 2,
      error: error.message,
      errorCode: 'agent_runtime_failed',
    });
  });

  it('refuses to run against an unhealthy runtime, explaining how to start it', async () => {
    const bus = recordingBus();
    const { agent, runtime } = await httpAgent({ steps: [], health: 'unhealthy' }, { bus });
    const error = await runFailure(agent.run('x'));
    expect(error.code).toBe('agent_runtime_failed');
    expect(error.message).toBe(
      `OpenClaw runtime is not available (HTTP runtime at ${runtime.url}): GET ${runtime.url}/health answered HTTP 503; start the OpenClaw runtime so that it listens on ${runtime.url} (GET /health, POST /api/query), or pass another host`,
    );
    expect(error.partialResult).toEqual({
      content: '',
      toolResults: [],
      turns: 0,
      metadata: {},
      messages: [],
    });
    expect(runtime.received).toEqual([]);
    expect(summary(bus)).toEqual([
      ['agent_turn_start', { agent: 'openclaw', input: 'x' }],
      [
        'agent_turn_end',
        { agent: 'openclaw', turns: 0, error: error.message, errorCode: 'agent_runtime_failed' },
      ],
    ]);
  });

  it('fails a hanging runtime after the read timeout instead of hanging', async () => {
    const { agent, runtime } = await httpAgent(
      { steps: [{ toolCall: 'calculator', arguments: { expression: '1' } }, { fault: 'hang' }] },
      { timeoutMs: 150 },
    );
    const error = await runFailure(agent.run('x'));
    expect(error.code).toBe('agent_runtime_failed');
    expect(error.message).toBe(
      `OpenClaw runtime failed: OpenClaw runtime did not answer POST ${runtime.url}/api/query within 150 ms`,
    );
    expect(error.partialResult).toMatchObject({ turns: 1, toolResults: [{ content: '1' }] });
  });

  it('fails on a garbage reply with a clear message', async () => {
    const { agent } = await httpAgent({ steps: [{ fault: 'garbage' }] });
    const error = await runFailure(agent.run('x'));
    expect(error.message).toMatch(
      /^OpenClaw runtime failed: OpenClaw runtime at .* sent a bad reply/,
    );
    expect(error.message).toContain('not valid JSON');
  });

  it('cancels a run through the signal, during a reply and before it starts', async () => {
    const controller = new AbortController();
    const aborter = new ScriptedTool({
      name: 'slow_lookup',
      steps: [
        () => {
          // Cancel while the next exchange (which hangs) is in flight.
          setTimeout(() => controller.abort(), 20);
          return 'found';
        },
      ],
    });
    const { agent, runtime } = await httpAgent(
      { steps: [{ toolCall: 'slow_lookup' }, { fault: 'hang' }] },
      { tools: [aborter] },
    );
    const error = await runFailure(agent.run('x', undefined, { signal: controller.signal }));
    expect(error.code).toBe('agent_cancelled');
    expect(error.name).toBe('AbortError');
    expect(error.message).toBe('OpenClaw run was cancelled');
    expect(error.partialResult).toMatchObject({ turns: 1, toolResults: [{ content: 'found' }] });
    const early = await runFailure(agent.run('y', undefined, { signal: controller.signal }));
    expect(early.code).toBe('agent_cancelled');
    expect(runtime.received.map((message) => message.type)).toEqual(['query', 'tool_result']);
  });
});

describe('OpenClawAgent with a given transport', () => {
  /** A transport that answers from a list, counting health checks and closes. */
  class ListTransport implements OpenClawTransport {
    readonly description = 'list transport';
    readonly sent: OpenClawMessage[] = [];
    healthChecks = 0;
    closes = 0;
    healthy = true;
    readonly #replies: Array<OpenClawMessage | Error>;

    constructor(replies: Array<OpenClawMessage | Error>) {
      this.#replies = replies;
    }

    async send(message: OpenClawMessage): Promise<OpenClawMessage> {
      this.sent.push(message);
      const reply = this.#replies.shift();
      if (reply === undefined) throw new Error('no reply left');
      if (reply instanceof Error) throw reply;
      return reply;
    }

    async health(): Promise<boolean> {
      this.healthChecks += 1;
      return this.healthy;
    }

    async close(): Promise<void> {
      this.closes += 1;
    }
  }

  const response = (content: string) => createOpenClawMessage({ type: 'response', content });

  it('checks health once, and again only after a transport failure', async () => {
    const transport = new ListTransport([
      response('a'),
      response('b'),
      new Error('socket hang up'),
      response('c'),
    ]);
    const agent = new OpenClawAgent({ transport, generateId: () => 'fixed' });
    expect((await agent.run('1')).content).toBe('a');
    expect((await agent.run('2')).content).toBe('b');
    expect(transport.healthChecks).toBe(1);
    const error = await runFailure(agent.run('3'));
    expect(error.message).toBe('OpenClaw runtime failed: socket hang up');
    expect((await agent.run('4')).content).toBe('c');
    expect(transport.healthChecks).toBe(2);
    expect(transport.sent.map((message) => message.id)).toEqual([
      'fixed',
      'fixed',
      'fixed',
      'fixed',
    ]);
    await agent.close();
    expect(transport.closes).toBe(0);
  });

  it('gives a generic hint when the transport does not say why it is unhealthy', async () => {
    const transport = new ListTransport([]);
    transport.healthy = false;
    const error = await runFailure(new OpenClawAgent({ transport }).run('x'));
    expect(error.message).toBe(
      'OpenClaw runtime is not available (list transport): the health check failed; start the OpenClaw runtime and make sure it answers health checks',
    );
  });

  it('rejects a reply of the wrong type', async () => {
    const transport = new ListTransport([createOpenClawMessage({ type: 'health_ok' })]);
    const error = await runFailure(new OpenClawAgent({ transport }).run('x'));
    expect(error.message).toBe(
      'OpenClaw runtime answered with an unexpected "health_ok" message; expected "response", "tool_call" or "error"',
    );
    expect(error.partialResult.turns).toBe(1);
  });

  it('falls back to the content, then a default, for an error reply without error text', async () => {
    const transport = new ListTransport([
      createOpenClawMessage({ type: 'error', content: 'from content' }),
      createOpenClawMessage({ type: 'error' }),
    ]);
    const agent = new OpenClawAgent({ transport });
    expect((await runFailure(agent.run('x'))).message).toMatch(/reported an error: from content$/);
    expect((await runFailure(agent.run('x'))).message).toMatch(
      /reported an error: Unknown error from OpenClaw$/,
    );
  });

  it('validates its options', () => {
    expect(() => new OpenClawAgent({ mode: 'grpc' as 'http' })).toThrow(
      `Unknown OpenClaw mode: "grpc". Use 'http' or 'subprocess'.`,
    );
    expect(() => new OpenClawAgent({ mode: 'subprocess' })).toThrow(/needs scriptPath/);
    expect(() => new OpenClawAgent({ maxTurns: 0 })).toThrow(/maxTurns must be a positive integer/);
    expect(() => new OpenClawAgent({ host: 'ftp://x' })).toThrow(/http:\/\/ or https:\/\//);
  });
});

describe('OpenClawAgent over a subprocess', () => {
  it('runs the tool loop end to end, and close() ends the child', async () => {
    const bus = recordingBus();
    const agent = await subprocessAgent(calculatorThenAnswer, { bus });
    const result = await agent.run('What is 2+2?');
    expect(result).toMatchObject({ content: 'The answer is 4.', turns: 2 });
    const types = bus.history.map((event) => event.type);
    expect(types).toEqual([
      'agent_turn_start',
      'tool_call_start',
      'tool_call_end',
      'agent_turn_end',
    ]);
    const pid = (agent.transport as SubprocessTransport).pid as number;
    expect(pid).toBeTypeOf('number');
    await agent.close();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('reports a runtime that crashes mid-run, with its stderr, and starts a fresh child next run', async () => {
    const agent = await subprocessAgent({
      steps: [{ toolCall: 'calculator', arguments: { expression: '5' } }, { fault: 'crash' }],
    });
    const error = await runFailure(agent.run('x'));
    expect(error.code).toBe('agent_runtime_failed');
    expect(error.message).toMatch(
      /^OpenClaw runtime failed: OpenClaw runtime \(subprocess .*\): the process exited with code 3; last stderr: .*crashing on purpose$/s,
    );
    expect(error.partialResult).toMatchObject({ turns: 1, toolResults: [{ content: '5' }] });
    expect((await runFailure(agent.run('again'))).message).toMatch(/exited with code 3/);
  });

  it('reports a missing script or node binary as an unavailable runtime', async () => {
    const missingScript = new OpenClawAgent({
      mode: 'subprocess',
      scriptPath: join(directory, 'nope.mjs'),
    });
    agents.push(missingScript);
    expect((await runFailure(missingScript.run('x'))).message).toMatch(
      /^OpenClaw runtime is not available \(subprocess .*nope\.mjs\): OpenClaw runtime script not found: .*nope\.mjs/,
    );
    const missingNode = await subprocessAgent(calculatorThenAnswer, {
      nodePath: join(directory, 'missing-node'),
    });
    const error = await runFailure(missingNode.run('x'));
    expect(error.message).toMatch(/Node\.js executable not found at .*missing-node/);
    expect(error.message).toMatch(/check that .* is an OpenClaw runtime/);
  });
});
