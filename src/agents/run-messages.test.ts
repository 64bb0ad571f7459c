import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type AgentResult,
  type AgentStreamEvent,
  Conversation,
  createAgentContext,
  type Message,
  type ToolContext,
} from '../core/index.js';
import { isPaired } from '../sessions/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  type ScriptedEngineReply,
  ScriptedTool,
  type ScriptedToolStep,
  toolCallReply,
} from '../testing/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';
import { CustomAgent } from './custom.js';
import { NativeOpenHandsAgent } from './native-openhands.js';
import { NativeReActAgent } from './native-react.js';
import { OpenClawAgent } from './openclaw/openclaw-agent.js';
import { createOpenClawMessage, type OpenClawMessage } from './openclaw/protocol.js';
import type { OpenClawTransport } from './openclaw/transport.js';
import { OrchestratorAgent, type OrchestratorAgentOptions } from './orchestrator.js';
import { RLMAgent } from './rlm.js';
import type { RlmInterpreter, RlmStepOptions, RlmStepResult } from './rlm-session.js';
import { SimpleAgent } from './simple.js';

/** A history with a finished tool exchange, as a session would hand it to the next turn. */
const HISTORY: readonly Message[] = [
  { role: 'user', content: 'Earlier question' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'old_1', name: 'work', arguments: '{"q":"0"}' }],
  },
  { role: 'tool', content: 'old result', toolCallId: 'old_1', name: 'work' },
  { role: 'assistant', content: 'Earlier answer' },
];

function withHistory() {
  return createAgentContext({ conversation: new Conversation({ messages: HISTORY }) });
}

function work(steps: readonly ScriptedToolStep[]): ScriptedTool {
  return new ScriptedTool({
    name: 'work',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    steps,
  });
}

/** A tool step that never finishes on its own; `started` resolves once it runs. */
function hangingStep(): { step: ScriptedToolStep; started: Promise<void> } {
  let resolve!: () => void;
  const started = new Promise<void>((done) => {
    resolve = done;
  });
  const step: ScriptedToolStep = (_args, _context: ToolContext | undefined) => {
    resolve();
    return new Promise<string>(() => {});
  };
  return { step, started };
}

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AgentError)) throw new Error(`expected an AgentError, got ${error}`);
  return error;
}

async function streamedResult(events: AsyncIterable<AgentStreamEvent>): Promise<AgentResult> {
  let result: AgentResult | undefined;
  for await (const event of events) if (event.type === 'result') result = event.result;
  if (result === undefined) throw new Error('the stream ended without a result');
  return result;
}

/** The opening of every engine call: the system prompt (when the agent has one), the history, then the input. */
function expectHistorySent(engine: ScriptedEngine, input: string, systemPrompt: boolean): void {
  const sent = engine.calls[0]?.messages ?? [];
  const opening = systemPrompt ? sent.slice(1) : sent;
  if (systemPrompt) expect(sent[0]?.role).toBe('system');
  expect(opening.slice(0, HISTORY.length + 1)).toEqual([
    ...HISTORY,
    { role: 'user', content: input },
  ]);
}

describe('AgentResult.messages: orchestrator (native tool calls)', () => {
  const script = (): ScriptedEngineReply[] => [
    assistantReply('<think>plan</think>Looking.', {
      toolCalls: [
        { id: 'a', name: 'work', arguments: { q: '1' } },
        { id: 'b', name: 'work', arguments: { q: '2' } },
      ],
    }),
    toolCallReply({ id: 'c', name: 'work', arguments: { q: '3' } }),
    assistantReply('<think>sure</think>Done.'),
  ];
  const expected: readonly Message[] = [
    {
      role: 'assistant',
      content: 'Looking.',
      toolCalls: [
        { id: 'a', name: 'work', arguments: '{"q":"1"}' },
        { id: 'b', name: 'work', arguments: '{"q":"2"}' },
      ],
    },
    { role: 'tool', content: 'r1', toolCallId: 'a', name: 'work' },
    { role: 'tool', content: 'r2', toolCallId: 'b', name: 'work' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c', name: 'work', arguments: '{"q":"3"}' }],
    },
    { role: 'tool', content: 'r3', toolCallId: 'c', name: 'work' },
    { role: 'assistant', content: 'Done.' },
  ];
  const make = (options: Partial<OrchestratorAgentOptions> = {}) => {
    const engine = new ScriptedEngine(script());
    const tools = [work(['r1', 'r2', 'r3'])];
    return { engine, agent: new OrchestratorAgent({ engine, model: 'm', tools, ...options }) };
  };

  it('reports two tool rounds paired, reasoning stripped, after sending the history', async () => {
    const { engine, agent } = make();
    const result = await agent.run('go', withHistory());
    expect(result.content).toBe('Done.');
    expect(result.messages).toEqual(expected);
    expect(isPaired(result.messages ?? [])).toBe(true);
    expectHistorySent(engine, 'go', false);
    engine.assertAllStepsConsumed();
  });

  it('reports the same messages in the streamed result event', async () => {
    const { engine, agent } = make();
    const result = await streamedResult(agent.stream('go', withHistory()));
    expect(result.messages).toEqual(expected);
    expect(engine.calls.map((call) => call.method)).toEqual(['stream', 'stream', 'stream']);
    expectHistorySent(engine, 'go', false);
  });

  it('makes sense sent back as the next turn: the engine gets history, input, the run, the new input', async () => {
    const { agent } = make();
    const first = await agent.run('go');
    const engine = new ScriptedEngine(['Again.']);
    const next = new OrchestratorAgent({ engine, model: 'm', tools: [work([])] });
    const conversation = new Conversation({
      messages: [{ role: 'user', content: 'go' }, ...(first.messages ?? [])],
    });
    await next.run('and now?', createAgentContext({ conversation }));
    expect(engine.calls[0]?.messages).toEqual([
      { role: 'user', content: 'go' },
      ...expected,
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('ends a max-turns result with its answer after the completed exchanges', async () => {
    const { agent } = make({ maxTurns: 2 });
    const result = await agent.run('go');
    expect(result.metadata.max_turns_exceeded).toBe(true);
    expect(result.messages).toEqual([
      ...expected.slice(0, 5),
      { role: 'assistant', content: 'Looking.' },
    ]);
    expect(isPaired(result.messages ?? [])).toBe(true);
  });

  it('ends a loop-detected result with its answer and leaves out the calls it did not run', async () => {
    const same = { name: 'work', arguments: { q: 'x' } };
    const engine = new ScriptedEngine([1, 2, 3, 4].map(() => toolCallReply(same)));
    const agent = new OrchestratorAgent({ engine, model: 'm', tools: [work(['x1', 'x2'])] });
    const result = await agent.run('go');
    expect(result.metadata.loop_detected).toBe(true);
    const messages = result.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual([
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: result.content });
    expect(isPaired(messages)).toBe(true);
  });

  it('keeps a cancelled run paired: the assistant message whose calls ran, with every result', async () => {
    const hang = hangingStep();
    const engine = new ScriptedEngine(script().slice(0, 2));
    const tools = [work(['r1', 'r2', hang.step])];
    const agent = new OrchestratorAgent({ engine, model: 'm', tools });
    const controller = new AbortController();
    const running = agent.run('go', undefined, { signal: controller.signal });
    await hang.started;
    controller.abort();
    const error = await rejection(running);
    expect(error.code).toBe('agent_cancelled');
    const messages = error.partialResult.messages ?? [];
    expect(messages.slice(0, 4)).toEqual(expected.slice(0, 4));
    expect(messages[4]).toMatchObject({ role: 'tool', toolCallId: 'c', name: 'work' });
    expect(messages).toHaveLength(5);
    expect(isPaired(messages)).toBe(true);
  });

  it('keeps a streamed run cancelled mid-stream paired', async () => {
    const hang = hangingStep();
    const engine = new ScriptedEngine(script().slice(0, 2));
    const agent = new OrchestratorAgent({
      engine,
      model: 'm',
      tools: [work(['r1', 'r2', hang.step])],
    });
    const controller = new AbortController();
    const consumed = streamedResult(agent.stream('go', undefined, { signal: controller.signal }));
    await hang.started;
    controller.abort();
    const error = await rejection(consumed);
    expect(error.partialResult.messages).toHaveLength(5);
    expect(isPaired(error.partialResult.messages ?? [])).toBe(true);
  });

  it('reports the completed exchanges when the engine fails mid-run', async () => {
    const engine = new ScriptedEngine([...script().slice(0, 1), errorReply('engine_http_error')]);
    const agent = new OrchestratorAgent({ engine, model: 'm', tools: [work(['r1', 'r2'])] });
    const error = await rejection(agent.run('go'));
    expect(error.code).toBe('agent_engine_failed');
    expect(error.partialResult.messages).toEqual(expected.slice(0, 3));
  });
});

describe('AgentResult.messages: text-protocol agents', () => {
  const structured = (q: string) => `THOUGHT: need ${q}\nTOOL: work\nINPUT: {"q": "${q}"}`;
  const react = (q: string) => `Thought: need ${q}\nAction: work\nAction Input: {"q": "${q}"}`;

  /** The text exchanged: each call reply, then the observation the loop sent back as a user message. */
  function expectTextExchange(messages: readonly Message[], prefix: string, answer: string): void {
    expect(messages.map((message) => message.role)).toEqual([
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(messages[0]?.content).toContain('work');
    expect(messages[1]).toEqual({ role: 'user', content: `${prefix}r1` });
    expect(messages[3]).toEqual({ role: 'user', content: `${prefix}r2` });
    expect(messages[4]).toEqual({ role: 'assistant', content: answer });
    expect(isPaired(messages)).toBe(true);
  }

  it('orchestrator structured mode: run and stream report the text sent back and forth', async () => {
    for (const streamed of [false, true]) {
      const replies = [structured('1'), structured('2'), 'THOUGHT: ok\nFINAL_ANSWER: Done.'];
      const engine = new ScriptedEngine(replies);
      const agent = new OrchestratorAgent({
        engine,
        model: 'm',
        tools: [work(['r1', 'r2'])],
        mode: 'structured',
      });
      const result = streamed
        ? await streamedResult(agent.stream('go', withHistory()))
        : await agent.run('go', withHistory());
      expectTextExchange(result.messages ?? [], 'Observation: ', 'Done.');
      expect(engine.calls[1]?.messages.slice(-2)).toEqual(result.messages?.slice(0, 2));
      expectHistorySent(engine, 'go', true);
    }
  });

  it('native_react: reports the exchanges and the answer, after sending the history', async () => {
    const replies = [react('1'), react('2'), 'Thought: ok\nFinal Answer: Done.'];
    const engine = new ScriptedEngine(replies);
    const agent = new NativeReActAgent({ engine, model: 'm', tools: [work(['r1', 'r2'])] });
    const result = await agent.run('go', withHistory());
    expectTextExchange(result.messages ?? [], 'Observation: ', 'Done.');
    expectHistorySent(engine, 'go', true);
  });

  it('native_react: a run cancelled during a tool keeps the reply whose call ran, with its observation', async () => {
    const hang = hangingStep();
    const engine = new ScriptedEngine([react('1'), react('2')]);
    const agent = new NativeReActAgent({ engine, model: 'm', tools: [work(['r1', hang.step])] });
    const controller = new AbortController();
    const running = agent.run('go', undefined, { signal: controller.signal });
    await hang.started;
    controller.abort();
    const error = await rejection(running);
    expect(error.code).toBe('agent_cancelled');
    const messages = error.partialResult.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual([
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(messages[3]?.content).toMatch(/^Observation: /);
    expect(isPaired(messages)).toBe(true);
  });

  it('native_react: a max-turns result ends with its answer', async () => {
    const engine = new ScriptedEngine([react('1')]);
    const agent = new NativeReActAgent({ engine, model: 'm', tools: [work(['r1'])], maxTurns: 1 });
    const result = await agent.run('go');
    expect(result.messages?.map((message) => message.role)).toEqual([
      'assistant',
      'user',
      'assistant',
    ]);
    expect(result.messages?.at(-1)).toEqual({ role: 'assistant', content: result.content });
  });

  it('native_openhands: reports the exchanges and the answer, after sending the history', async () => {
    const action = (q: string) => `Action: work\nAction Input: {"q": "${q}"}`;
    const engine = new ScriptedEngine([action('1'), action('2'), '<think>ok</think>Done.']);
    const agent = new NativeOpenHandsAgent({ engine, model: 'm', tools: [work(['r1', 'r2'])] });
    const result = await agent.run('go', withHistory());
    expectTextExchange(result.messages ?? [], 'Result: ', 'Done.');
    expect(result.messages?.[0]).toEqual({ role: 'assistant', content: action('1') });
    expectHistorySent(engine, 'go', true);
  });

  it('native_openhands: an engine failure reports the completed exchanges, a max-turns result its answer', async () => {
    const action = 'Action: work\nAction Input: {"q": "1"}';
    const failing = new ScriptedEngine([action, errorReply('engine_unavailable')]);
    const agent = new NativeOpenHandsAgent({ engine: failing, model: 'm', tools: [work(['r1'])] });
    const error = await rejection(agent.run('go'));
    expect(error.partialResult.messages).toEqual([
      { role: 'assistant', content: action },
      { role: 'user', content: 'Result: r1' },
    ]);
    const engine = new ScriptedEngine([action]);
    const limited = new NativeOpenHandsAgent({
      engine,
      model: 'm',
      tools: [work(['r1'])],
      maxTurns: 1,
    });
    const result = await limited.run('go');
    expect(result.messages?.at(-1)).toEqual({ role: 'assistant', content: result.content });
    expect(result.messages).toHaveLength(3);
  });
});

/** A fake interpreter: prints `out <n>`, calls FINAL("42") for code that says FINAL, hangs on `hang`. */
function fakeInterpreter(onHang: () => void = () => {}): RlmInterpreter {
  let steps = 0;
  const done = (output: string, end: RlmStepResult['end'] = 'completed'): RlmStepResult => ({
    ok: end === 'completed',
    output,
    droppedChars: 0,
    error: end === 'completed' ? undefined : end,
    end,
    elapsedMs: 1,
  });
  return {
    pid: undefined,
    alive: true,
    async exec(code: string, options: RlmStepOptions): Promise<RlmStepResult> {
      if (code.startsWith('hang()')) {
        const { signal } = options;
        if (signal !== undefined && !signal.aborted) {
          await new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => resolve(), { once: true });
            onHang();
          });
        }
        return done('', 'aborted');
      }
      if (code.startsWith('FINAL(')) await options.onCall?.('final', '42');
      if (!code.startsWith('step')) return done('');
      steps += 1;
      return done(`out ${steps}`);
    },
    async close() {},
  };
}

describe('AgentResult.messages: rlm', () => {
  const py = (code: string) => `\`\`\`python\n${code}\n\`\`\``;
  const make = (replies: readonly ScriptedEngineReply[], onHang?: () => void) => {
    const engine = new ScriptedEngine(replies);
    const session = fakeInterpreter(onHang);
    const openInterpreter = async () => ({ ok: true as const, session });
    return { engine, agent: new RLMAgent({ engine, model: 'm', openInterpreter }) };
  };

  it('reports each code reply and its observation, then the FINAL value as the answer', async () => {
    const { engine, agent } = make([py('step(1)'), py('step(2)'), py('FINAL("42")')]);
    const result = await agent.run('go', withHistory());
    expect(result.content).toBe('42');
    expect(result.messages).toEqual([
      { role: 'assistant', content: py('step(1)') },
      { role: 'user', content: 'Output:\nout 1' },
      { role: 'assistant', content: py('step(2)') },
      { role: 'user', content: 'Output:\nout 2' },
      { role: 'assistant', content: '42' },
    ]);
    expectHistorySent(engine, 'go', true);
  });

  it('reports the completed exchanges of a run cancelled during a step', async () => {
    let hanging!: () => void;
    const started = new Promise<void>((resolve) => {
      hanging = resolve;
    });
    const { agent } = make([py('step(1)'), py('hang()')], () => hanging());
    const controller = new AbortController();
    const running = agent.run('go', undefined, { signal: controller.signal });
    await started;
    controller.abort();
    const error = await rejection(running);
    expect(error.code).toBe('agent_cancelled');
    expect(error.partialResult.messages).toEqual([
      { role: 'assistant', content: py('step(1)') },
      { role: 'user', content: 'Output:\nout 1' },
    ]);
  });
});

describe('AgentResult.messages: simple and custom', () => {
  it('simple: run and stream report the answer without reasoning, after sending the history', async () => {
    for (const streamed of [false, true]) {
      const engine = new ScriptedEngine([assistantReply('<think>hm</think>Paris')]);
      const agent = new SimpleAgent({ engine, model: 'm' });
      const result = streamed
        ? await streamedResult(agent.stream('Capital?', withHistory()))
        : await agent.run('Capital?', withHistory());
      expect(result.messages).toEqual([{ role: 'assistant', content: 'Paris' }]);
      expectHistorySent(engine, 'Capital?', false);
    }
  });

  it('simple: a cancelled run reports no messages', async () => {
    const agent = new SimpleAgent({ engine: new ScriptedEngine(['x']), model: 'm' });
    const error = await rejection(agent.run('go', undefined, { signal: AbortSignal.abort() }));
    expect(error.partialResult.messages).toEqual([]);
  });

  it('custom: the template reports no messages in its partial result', async () => {
    const error = await rejection(new CustomAgent().run('go', withHistory()));
    expect(error.code).toBe('agent_not_implemented');
    expect(error.partialResult.messages).toEqual([]);
  });
});

/** A transport that answers each message with the next scripted reply and records what it was sent. */
function scriptedTransport(replies: readonly Partial<OpenClawMessage>[]) {
  const sent: OpenClawMessage[] = [];
  const queue = [...replies];
  const transport: OpenClawTransport = {
    description: 'scripted',
    async send(message) {
      sent.push(message);
      const next = queue.shift();
      if (next === undefined) throw new Error('no scripted reply left');
      return createOpenClawMessage({ type: 'response', ...next });
    },
    async health() {
      return true;
    },
    async close() {},
  };
  return { transport, sent };
}

describe('AgentResult.messages: openclaw', () => {
  const call = (id: string, q: string): Partial<OpenClawMessage> => ({
    type: 'tool_call',
    id,
    toolName: 'work',
    toolArgs: { q },
  });

  it('reports each runtime tool call with its result, then the response; maps the history with its calls', async () => {
    const { transport, sent } = scriptedTransport([
      call('t1', '1'),
      call('t2', '2'),
      { type: 'response', content: 'Done.' },
    ]);
    const agent = new OpenClawAgent({ transport, tools: [work(['r1', 'r2'])] });
    const result = await agent.run('go', withHistory());
    expect(result.messages).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 't1', name: 'work', arguments: '{"q":"1"}' }],
      },
      { role: 'tool', content: 'r1', toolCallId: 't1', name: 'work' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 't2', name: 'work', arguments: '{"q":"2"}' }],
      },
      { role: 'tool', content: 'r2', toolCallId: 't2', name: 'work' },
      { role: 'assistant', content: 'Done.' },
    ]);
    expect(isPaired(result.messages ?? [])).toBe(true);
    expect(sent[0]?.metadata.conversation).toEqual([
      { role: 'user', content: 'Earlier question' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'old_1', type: 'function', function: { name: 'work', arguments: '{"q":"0"}' } },
        ],
      },
      { role: 'tool', content: 'old result', tool_call_id: 'old_1' },
      { role: 'assistant', content: 'Earlier answer' },
    ]);
  });

  it('keeps a cancelled run paired and ends a max-turns result with its answer', async () => {
    const hang = hangingStep();
    const cancelled = scriptedTransport([call('t1', '1'), call('t2', '2')]);
    const agent = new OpenClawAgent({
      transport: cancelled.transport,
      tools: [work(['r1', hang.step])],
    });
    const controller = new AbortController();
    const running = agent.run('go', undefined, { signal: controller.signal });
    await hang.started;
    controller.abort();
    const error = await rejection(running);
    expect(error.code).toBe('agent_cancelled');
    expect(error.partialResult.messages).toHaveLength(4);
    expect(isPaired(error.partialResult.messages ?? [])).toBe(true);

    const limited = scriptedTransport([call('t1', '1'), call('t2', '2')]);
    const short = new OpenClawAgent({
      transport: limited.transport,
      tools: [work(['r1'])],
      maxTurns: 2,
    });
    const result = await short.run('go');
    expect(result.content).toBe(MAX_TURNS_MESSAGE);
    expect(result.messages?.map((message) => message.role)).toEqual([
      'assistant',
      'tool',
      'assistant',
    ]);
  });
});
