import { describe, expect, it, vi } from 'vitest';
import {
  AgentError,
  Conversation,
  createAgentContext,
  EngineError,
  EventBus,
  type InferenceEngine,
  JarvisError,
  type Message,
  type ToolContext,
  type ToolResult,
} from '../core/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  type ScriptedEngineToolCall,
  ScriptedTool,
  type ScriptedToolStep,
  toolCallReply,
} from '../testing/index.js';
import { CalculatorTool } from '../tools/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';
import { OrchestratorAgent, type OrchestratorAgentOptions } from './orchestrator.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function setup(
  replies: ConstructorParameters<typeof ScriptedEngine>[0],
  extra: Partial<OrchestratorAgentOptions> = {},
) {
  const engine = new ScriptedEngine(replies);
  const bus = new EventBus({ recordHistory: true });
  const agent = new OrchestratorAgent({ engine, model: 'm', bus, ...extra });
  return { engine, bus, agent };
}

function tool(name: string, steps: readonly ScriptedToolStep[], timeoutMs?: number) {
  return new ScriptedTool({
    name,
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    steps,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

function toolMessages(messages: readonly Message[] | undefined): Message[] {
  return (messages ?? []).filter((message) => message.role === 'tool');
}

const calculatorSpec = {
  type: 'function',
  function: { name: 'calculator', description: expect.any(String), parameters: expect.any(Object) },
};

describe('OrchestratorAgent: the function-calling loop', () => {
  it('runs the requested tool, sends its result back and returns the final answer', async () => {
    const { engine, agent } = setup(
      [
        toolCallReply({ id: 'call_a', name: 'calculator', arguments: { expression: '2+2' } }),
        assistantReply('<think>easy</think>2 + 2 = 4'),
      ],
      { tools: [new CalculatorTool()] },
    );
    const result = await agent.run('What is 2+2?');
    expect(result.content).toBe('2 + 2 = 4');
    expect(result.turns).toBe(2);
    expect(result.toolResults).toMatchObject([
      { toolName: 'calculator', success: true, content: '4' },
    ]);
    expect(engine.calls.map((call) => call.method)).toEqual(['generate', 'generate']);
    expect(engine.calls[0]?.messages).toEqual([{ role: 'user', content: 'What is 2+2?' }]);
    expect(engine.calls[0]?.options).toEqual({
      model: 'm',
      temperature: 0.7,
      maxTokens: 1024,
      tools: [calculatorSpec],
    });
    expect(engine.calls[1]?.messages).toEqual([
      { role: 'user', content: 'What is 2+2?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_a', name: 'calculator', arguments: '{"expression":"2+2"}' }],
      },
      { role: 'tool', content: '4', toolCallId: 'call_a', name: 'calculator' },
    ]);
    engine.assertAllStepsConsumed();
  });

  it('sends no tools option without tools and answers in one turn', async () => {
    const { engine, agent, bus } = setup(['Hello!']);
    const result = await agent.run('hi');
    expect(result).toEqual({
      content: 'Hello!',
      toolResults: [],
      turns: 1,
      metadata: { usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } },
      messages: [{ role: 'assistant', content: 'Hello!' }],
    });
    expect(engine.calls[0]?.options).toEqual({ model: 'm', temperature: 0.7, maxTokens: 1024 });
    expect('tools' in (engine.calls[0]?.options ?? {})).toBe(false);
    expect(bus.history.at(-1)?.data).toEqual({
      agent: 'orchestrator',
      turns: 1,
      contentLength: 6,
    });
  });

  it('sends the system prompt first, then the context conversation, then the input', async () => {
    const { engine, agent } = setup(['ok'], { systemPrompt: 'Be brief.' });
    const conversation = new Conversation({ messages: [{ role: 'user', content: 'earlier' }] });
    await agent.run('now', createAgentContext({ conversation }));
    expect(engine.calls[0]?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'earlier' },
      { role: 'user', content: 'now' },
    ]);
  });

  it('keeps the assistant text that came with tool calls in the conversation', async () => {
    const search = tool('search', ['found it']);
    const { engine, agent } = setup(
      [
        assistantReply('Let me look that up.', {
          toolCalls: [{ id: 'c1', name: 'search', arguments: { q: 'x' } }],
        }),
        'Done.',
      ],
      { tools: [search], temperature: 0.1, maxTokens: 99 },
    );
    await agent.run('find x');
    expect(engine.calls[1]?.messages[1]).toEqual({
      role: 'assistant',
      content: 'Let me look that up.',
      toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }],
    });
    expect(engine.calls[1]?.options).toMatchObject({ temperature: 0.1, maxTokens: 99 });
  });

  it('publishes the documented event sequence of a run', async () => {
    const search = tool('search', ['a', 'b']);
    const { agent, bus } = setup(
      [
        toolCallReply(
          { id: 'c1', name: 'search', arguments: { q: '1' } },
          { id: 'c2', name: 'search', arguments: { q: '2' } },
        ),
        'answer',
      ],
      { tools: [search], parallelToolCalls: false },
    );
    await agent.run('go');
    expect(bus.history.map((event) => event.type)).toEqual([
      'agent_turn_start',
      'inference_start',
      'inference_end',
      'tool_call_start',
      'tool_call_end',
      'tool_call_start',
      'tool_call_end',
      'inference_start',
      'inference_end',
      'agent_turn_end',
    ]);
    expect(bus.history[0]?.data).toEqual({ agent: 'orchestrator', input: 'go' });
    expect(bus.history[1]?.data).toEqual({ model: 'm', engine: 'scripted', turn: 1 });
    expect(bus.history[3]?.data).toEqual({
      toolName: 'search',
      callId: 'c1',
      arguments: { q: '1' },
    });
    expect(bus.history[7]?.data).toEqual({ model: 'm', engine: 'scripted', turn: 2 });
    expect(bus.history[9]?.data).toEqual({ agent: 'orchestrator', turns: 2, contentLength: 6 });
  });

  it('sums token usage over all engine calls', async () => {
    const search = tool('search', ['r']);
    const { agent } = setup(
      [
        assistantReply('', {
          toolCalls: [{ name: 'search', arguments: {} }],
          usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
        }),
        assistantReply('done', {
          usage: { promptTokens: 20, completionTokens: 2, totalTokens: 22 },
        }),
      ],
      { tools: [search] },
    );
    const result = await agent.run('x');
    expect(result.metadata).toEqual({
      usage: { promptTokens: 30, completionTokens: 7, totalTokens: 37 },
    });
  });
});

describe('OrchestratorAgent: several calls in one turn', () => {
  it('runs the calls of a turn concurrently and appends the results in the order issued', async () => {
    const aStarted = deferred();
    const bStarted = deferred();
    const aResult = deferred<string>();
    const bResult = deferred<string>();
    let inFlight = 0;
    let maxInFlight = 0;
    const track = (started: { resolve: () => void }, result: Promise<string>) => async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      started.resolve();
      const text = await result;
      inFlight -= 1;
      return text;
    };
    const slow = tool('slow', [track(aStarted, aResult.promise)]);
    const fast = tool('fast', [track(bStarted, bResult.promise)]);
    const { engine, agent } = setup(
      [
        toolCallReply(
          { id: 'a', name: 'slow', arguments: {} },
          { id: 'b', name: 'fast', arguments: {} },
        ),
        'both done',
      ],
      { tools: [slow, fast] },
    );
    const running = agent.run('go');
    await Promise.all([aStarted.promise, bStarted.promise]);
    expect(maxInFlight).toBe(2);
    bResult.resolve('B');
    aResult.resolve('A');
    const result = await running;
    expect(result.toolResults.map((r) => r.content)).toEqual(['A', 'B']);
    expect(toolMessages(engine.calls[1]?.messages)).toEqual([
      { role: 'tool', content: 'A', toolCallId: 'a', name: 'slow' },
      { role: 'tool', content: 'B', toolCallId: 'b', name: 'fast' },
    ]);
  });

  it('runs the calls one after another with parallelToolCalls: false', async () => {
    const order: string[] = [];
    const step = (name: string) => async () => {
      order.push(`start ${name}`);
      await Promise.resolve();
      order.push(`end ${name}`);
      return name;
    };
    const work = tool('work', [step('1'), step('2'), step('3')]);
    const { agent } = setup(
      [
        toolCallReply(
          { name: 'work', arguments: { q: '1' } },
          { name: 'work', arguments: { q: '2' } },
          { name: 'work', arguments: { q: '3' } },
        ),
        'ok',
      ],
      { tools: [work], parallelToolCalls: false },
    );
    await agent.run('go');
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('keeps at most maxParallelTools calls in flight', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const started = [deferred(), deferred(), deferred(), deferred()];
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const steps = gates.map((gate, index) => async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      started[index]?.resolve();
      await gate.promise;
      inFlight -= 1;
      return String(index);
    });
    const work = tool('work', steps);
    const calls = [0, 1, 2, 3].map((n) => ({ name: 'work', arguments: { q: String(n) } }));
    const { agent } = setup([toolCallReply(...calls), 'ok'], {
      tools: [work],
      maxParallelTools: 2,
    });
    const running = agent.run('go');
    await Promise.all([started[0]?.promise, started[1]?.promise]);
    expect(work.calls).toHaveLength(2);
    gates[1]?.resolve();
    await started[2]?.promise;
    expect(work.calls).toHaveLength(3);
    gates[0]?.resolve();
    await started[3]?.promise;
    gates[2]?.resolve();
    gates[3]?.resolve();
    const result = await running;
    expect(maxInFlight).toBe(2);
    expect(result.toolResults.map((r) => r.content)).toEqual(['0', '1', '2', '3']);
  });

  it('executes at most 20 calls per turn and answers the rest with too_many_calls', async () => {
    const steps = Array.from({ length: 20 }, (_, n) => `r${n}`);
    const work = tool('work', steps);
    const calls: ScriptedEngineToolCall[] = Array.from({ length: 100 }, (_, n) => ({
      id: `c${n}`,
      name: 'work',
      arguments: { q: String(n) },
    }));
    const { engine, agent } = setup([toolCallReply(...calls), 'done'], { tools: [work] });
    const result = await agent.run('go');
    expect(work.calls).toHaveLength(20);
    expect(work.calls[19]).toEqual({ q: '19' });
    expect(result.toolResults).toHaveLength(100);
    expect(result.toolResults.slice(0, 20).every((r) => r.success)).toBe(true);
    const refused = result.toolResults.slice(20);
    expect(refused.every((r) => !r.success && r.errorCode === 'too_many_calls')).toBe(true);
    expect(refused[0]?.content).toContain('at most 20 tool calls');
    expect(refused[0]?.content).toContain('Call fewer tools per turn');
    const sent = engine.calls[1]?.messages ?? [];
    expect(sent[1]?.toolCalls).toHaveLength(100);
    const answers = toolMessages(sent);
    expect(answers.map((message) => message.toolCallId)).toEqual(calls.map((call) => call.id));
    expect(answers[99]?.content).toContain('was not run');
    work.assertAllStepsConsumed();
  });

  it('honours a smaller maxToolCallsPerTurn', async () => {
    const work = tool('work', ['1']);
    const { agent } = setup(
      [
        toolCallReply(
          { name: 'work', arguments: { q: 'a' } },
          { name: 'work', arguments: { q: 'b' } },
        ),
        'ok',
      ],
      { tools: [work], maxToolCallsPerTurn: 1 },
    );
    const result = await agent.run('go');
    expect(result.toolResults.map((r) => (r.success ? 'ok' : r.errorCode))).toEqual([
      'ok',
      'too_many_calls',
    ]);
  });

  it('makes empty and duplicate call ids unique so every tool message matches its call', async () => {
    const work = tool('work', ['1', '2', '3', '4', '5']);
    const { engine, agent } = setup(
      [
        toolCallReply(
          { id: '', name: 'work', arguments: { q: '1' } },
          { id: '', name: 'work', arguments: { q: '2' } },
          { id: 'dup', name: 'work', arguments: { q: '3' } },
          { id: 'dup', name: 'work', arguments: { q: '4' } },
        ),
        toolCallReply({ id: 'dup', name: 'work', arguments: { q: '5' } }),
        'ok',
      ],
      { tools: [work] },
    );
    await agent.run('go');
    const sent = engine.calls[2]?.messages ?? [];
    const issued = sent.flatMap((message) => message.toolCalls ?? []).map((call) => call.id);
    expect(issued).toEqual(['call_1_1', 'call_1_2', 'dup', 'dup_2', 'dup_3']);
    expect(toolMessages(sent).map((message) => message.toolCallId)).toEqual(issued);
  });
});

describe('OrchestratorAgent: mistakes are values the model can repair', () => {
  it('reports an unknown tool and invalid arguments, and the model repairs them next turn', async () => {
    const { engine, agent } = setup(
      [
        toolCallReply(
          { id: 'c1', name: 'web_search', arguments: { query: 'x' } },
          { id: 'c2', name: 'calculator', arguments: '{"expression": ' },
          { id: 'c3', name: 'calculator', arguments: { expr: '2+2' } },
        ),
        toolCallReply({ id: 'c4', name: 'calculator', arguments: { expression: '2+2' } }),
        'It is 4.',
      ],
      { tools: [new CalculatorTool()] },
    );
    const result = await agent.run('2+2?');
    expect(result.content).toBe('It is 4.');
    expect(result.turns).toBe(3);
    expect(result.toolResults.map((r) => (r.success ? 'ok' : r.errorCode))).toEqual([
      'unknown_tool',
      'invalid_arguments',
      'invalid_arguments',
      'ok',
    ]);
    const [unknown, badJson, badSchema] = toolMessages(engine.calls[1]?.messages);
    expect(unknown?.content).toBe('Unknown tool: web_search (available tools: calculator)');
    expect(badJson?.content).toContain('Invalid arguments JSON');
    expect(badSchema?.content).toContain("Invalid arguments for tool 'calculator'");
    expect(toolMessages(engine.calls[2]?.messages).at(-1)?.content).toBe('4');
  });

  it('passes a tool crash back to the model and continues', async () => {
    const broken = tool('broken', [new Error('disk on fire')]);
    const { agent } = setup([toolCallReply({ name: 'broken', arguments: {} }), 'sorry'], {
      tools: [broken],
    });
    const result = await agent.run('go');
    expect(result.content).toBe('sorry');
    expect(result.toolResults[0]).toMatchObject({
      success: false,
      errorCode: 'execution_failed',
      content: 'Tool execution error: disk on fire',
    });
  });

  it('times out a hanging tool and continues', async () => {
    let toolSignal: AbortSignal | undefined;
    const hanging = tool(
      'hang',
      [
        (_args: unknown, context: ToolContext | undefined) => {
          toolSignal = context?.signal;
          return new Promise<string>(() => {});
        },
      ],
      5,
    );
    const { engine, agent } = setup([toolCallReply({ name: 'hang', arguments: {} }), 'gave up'], {
      tools: [hanging],
    });
    const result = await agent.run('go');
    expect(result.content).toBe('gave up');
    expect(result.toolResults[0]).toMatchObject({ success: false, errorCode: 'timed_out' });
    expect(toolSignal?.aborted).toBe(true);
    expect(toolMessages(engine.calls[1]?.messages)[0]?.content).toContain('timed out');
  });

  it('passes the confirmation callback and default timeout to its executor', async () => {
    const guarded = new ScriptedTool({ name: 'rm', requiresConfirmation: true, steps: [] });
    const slow = new ScriptedTool({ name: 'slow', steps: [() => new Promise<string>(() => {})] });
    const confirm = vi.fn(() => false);
    const { agent } = setup(
      [toolCallReply({ name: 'rm', arguments: {} }, { name: 'slow', arguments: {} }), 'ok'],
      { tools: [guarded, slow], confirm, defaultTimeoutMs: 5 },
    );
    const result = await agent.run('go');
    expect(confirm).toHaveBeenCalledOnce();
    expect(result.toolResults.map((r) => (r.success ? 'ok' : r.errorCode))).toEqual([
      'confirmation_denied',
      'timed_out',
    ]);
  });
});

describe('OrchestratorAgent: turn limit', () => {
  it('stops after maxTurns with the last non-empty content, having run the last turn tools', async () => {
    const work = tool('work', ['1', '2']);
    const { engine, agent, bus } = setup(
      [
        assistantReply('Thinking about it.', {
          toolCalls: [{ name: 'work', arguments: { q: '1' } }],
        }),
        toolCallReply({ name: 'work', arguments: { q: '2' } }),
      ],
      { tools: [work], maxTurns: 2 },
    );
    const result = await agent.run('go');
    expect(work.calls).toHaveLength(2);
    expect(result.content).toBe('Thinking about it.');
    expect(result.turns).toBe(2);
    expect(result.toolResults).toHaveLength(2);
    expect(result.metadata).toMatchObject({ max_turns_exceeded: true, usage: expect.any(Object) });
    expect(bus.history.at(-1)?.data).toEqual({
      agent: 'orchestrator',
      turns: 2,
      maxTurnsExceeded: true,
    });
    engine.assertAllStepsConsumed();
  });

  it('uses the default message when the model never wrote any text', async () => {
    const work = tool('work', ['1']);
    const { agent } = setup([toolCallReply({ name: 'work', arguments: {} })], {
      tools: [work],
      maxTurns: 1,
    });
    expect((await agent.run('go')).content).toBe(MAX_TURNS_MESSAGE);
  });

  it.each([0])('returns the max-turns result at once for maxTurns %i', async (maxTurns) => {
    const { engine, agent, bus } = setup([], { maxTurns });
    const result = await agent.run('go');
    expect(result).toEqual({
      content: MAX_TURNS_MESSAGE,
      toolResults: [],
      turns: 0,
      metadata: {
        max_turns_exceeded: true,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      },
      messages: [{ role: 'assistant', content: MAX_TURNS_MESSAGE }],
    });
    expect(engine.calls).toHaveLength(0);
    expect(bus.history.map((event) => event.type)).toEqual(['agent_turn_start', 'agent_turn_end']);
  });

  // Was unchecked: NaN and negatives silently ran no turn, 1.5 ran one, Infinity had no limit at all.
  it.each([-3, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses maxTurns %s like the other agents do',
    (maxTurns) => {
      const engine = new ScriptedEngine([]);
      expect(() => new OrchestratorAgent({ engine, model: 'm', maxTurns })).toThrow(JarvisError);
      expect(() => new OrchestratorAgent({ engine, model: 'm', maxTurns })).toThrow(
        /^maxTurns must be a whole number of at least 0, got /,
      );
    },
  );
});

describe('OrchestratorAgent: loop guard', () => {
  it('refuses the third identical call in a row and lets the model change course', async () => {
    const search = tool('search', ['r1', 'r2']);
    const { engine, agent } = setup(
      [
        toolCallReply({ name: 'search', arguments: '{"q": "x"}' }),
        toolCallReply({ name: 'search', arguments: '{"q":"x"}' }),
        toolCallReply({ name: 'search', arguments: { q: 'x' } }),
        'I could not find more.',
      ],
      { tools: [search] },
    );
    const result = await agent.run('go');
    expect(search.calls).toHaveLength(2);
    expect(result.content).toBe('I could not find more.');
    expect(result.toolResults[2]).toMatchObject({ success: false, errorCode: 'repeated_call' });
    const refusal = toolMessages(engine.calls[3]?.messages).at(-1)?.content ?? '';
    expect(refusal).toContain('You are repeating yourself');
    expect(refusal).toContain('final answer');
  });

  it('ends the run on the fourth identical call in a row', async () => {
    const search = tool('search', ['r1', 'r2']);
    const same = { name: 'search', arguments: { q: 'x' } };
    const { engine, agent, bus } = setup(
      [
        assistantReply('Searching.', { toolCalls: [same] }),
        toolCallReply(same),
        toolCallReply(same),
        toolCallReply(same),
      ],
      { tools: [search] },
    );
    const result = await agent.run('go');
    expect(search.calls).toHaveLength(2);
    expect(result.turns).toBe(4);
    expect(result.content).toBe('Searching.');
    expect(result.metadata).toMatchObject({ loop_detected: true, usage: expect.any(Object) });
    expect(result.toolResults.map((r) => (r.success ? 'ok' : r.errorCode))).toEqual([
      'ok',
      'ok',
      'repeated_call',
    ]);
    expect(bus.history.at(-1)?.data).toEqual({
      agent: 'orchestrator',
      turns: 4,
      loopDetected: true,
    });
    expect(bus.history.find((event) => event.type === 'loop_guard_triggered')?.data).toMatchObject({
      agent: 'orchestrator',
      toolName: 'search',
      repeats: 4,
    });
    engine.assertAllStepsConsumed();
  });

  it('ends the run with a message naming the tool when the model wrote no text', async () => {
    const search = tool('search', ['r1', 'r2']);
    const same = { name: 'search', arguments: { q: 'x' } };
    const { agent } = setup([toolCallReply(same, same, same, same)], { tools: [search] });
    const result = await agent.run('go');
    expect(result.metadata).toMatchObject({ loop_detected: true });
    expect(result.content).toContain("'search'");
    expect(result.turns).toBe(1);
  });
});

describe('OrchestratorAgent: cancellation and failures', () => {
  it('cancels running tools, answers every call and rejects with the tool results so far', async () => {
    const hangStarted = deferred();
    let hangSignal: AbortSignal | undefined;
    const quick = tool('quick', ['fast result']);
    const hang = tool('hang', [
      (_args: unknown, context: ToolContext | undefined) => {
        hangSignal = context?.signal;
        hangStarted.resolve();
        return new Promise<string>(() => {});
      },
    ]);
    const { engine, agent, bus } = setup(
      [
        toolCallReply(
          { id: 'q', name: 'quick', arguments: {} },
          { id: 'h', name: 'hang', arguments: {} },
        ),
      ],
      { tools: [quick, hang] },
    );
    const quickDone = deferred();
    bus.subscribe('tool_call_end', (event) => {
      if (event.data.toolName === 'quick') quickDone.resolve();
    });
    const controller = new AbortController();
    const running = agent.run('go', undefined, { signal: controller.signal });
    await Promise.all([hangStarted.promise, quickDone.promise]);
    controller.abort();
    const error = await rejection(running);
    expect(error.code).toBe('agent_cancelled');
    expect(error.name).toBe('AbortError');
    expect(error.partialResult.turns).toBe(1);
    expect(
      error.partialResult.toolResults.map((r) => (r.success ? r.content : r.errorCode)),
    ).toEqual(['fast result', 'cancelled']);
    expect(hangSignal?.aborted).toBe(true);
    expect(engine.calls).toHaveLength(1);
    expect(bus.history.at(-1)?.data).toMatchObject({
      agent: 'orchestrator',
      turns: 1,
      errorCode: 'agent_cancelled',
      error: expect.any(String),
    });
  });

  it('gives calls not yet started a cancelled result without running them', async () => {
    const started = deferred();
    const work = tool('work', [
      () => {
        started.resolve();
        return new Promise<string>(() => {});
      },
    ]);
    const { agent } = setup(
      [
        toolCallReply(
          { name: 'work', arguments: { q: '1' } },
          { name: 'work', arguments: { q: '2' } },
          { name: 'work', arguments: { q: '3' } },
        ),
      ],
      { tools: [work], parallelToolCalls: false },
    );
    const controller = new AbortController();
    const running = agent.run('go', undefined, { signal: controller.signal });
    await started.promise;
    controller.abort();
    const error = await rejection(running);
    expect(work.calls).toHaveLength(1);
    const results = error.partialResult.toolResults as readonly ToolResult[];
    expect(results.map((r) => (r.success ? 'ok' : r.errorCode))).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(results[2]?.content).toContain('before it started');
  });

  it('cancels during an engine call, passing the signal to the engine', async () => {
    const engineCalled = deferred();
    const work = tool('work', ['w']);
    const { engine, agent } = setup(
      [
        toolCallReply({ name: 'work', arguments: {} }),
        () => {
          engineCalled.resolve();
          return new Promise<never>(() => {});
        },
      ],
      { tools: [work] },
    );
    const controller = new AbortController();
    const running = agent.run('go', undefined, { signal: controller.signal });
    await engineCalled.promise;
    controller.abort(new Error('stop'));
    const error = await rejection(running);
    expect(error.code).toBe('agent_cancelled');
    expect(error.partialResult).toMatchObject({ turns: 1, toolResults: [{ content: 'w' }] });
    expect(engine.calls[1]?.options.signal).toBe(controller.signal);
  });

  it('does not call the engine when the signal is already aborted', async () => {
    const { engine, agent } = setup([]);
    const error = await rejection(agent.run('go', undefined, { signal: AbortSignal.abort() }));
    expect(error.code).toBe('agent_cancelled');
    expect(error.partialResult.turns).toBe(0);
    expect(engine.calls).toHaveLength(0);
  });

  it('reports an engine failure mid-run with the partial result and the engine error as cause', async () => {
    const work = tool('work', ['w']);
    const { agent, bus } = setup(
      [
        assistantReply('Working.', {
          toolCalls: [{ name: 'work', arguments: {} }],
          usage: { promptTokens: 4, completionTokens: 1, totalTokens: 5 },
        }),
        errorReply('engine_http_error'),
      ],
      { tools: [work] },
    );
    const error = await rejection(agent.run('go'));
    expect(error.code).toBe('agent_engine_failed');
    expect(error.cause).toBeInstanceOf(EngineError);
    expect((error.cause as EngineError).code).toBe('engine_http_error');
    expect(error.message).toContain('turn 2');
    expect(error.partialResult).toEqual({
      content: 'Working.',
      toolResults: [expect.objectContaining({ content: 'w', success: true })],
      turns: 1,
      metadata: { usage: { promptTokens: 4, completionTokens: 1, totalTokens: 5 } },
      messages: [
        {
          role: 'assistant',
          content: 'Working.',
          toolCalls: [expect.objectContaining({ name: 'work' })],
        },
        { role: 'tool', content: 'w', toolCallId: expect.any(String), name: 'work' },
      ],
    });
    const types = bus.history.map((event) => event.type);
    expect(types.slice(-2)).toEqual(['inference_end', 'agent_turn_end']);
    expect(bus.history.at(-2)?.data).toMatchObject({ success: false, turn: 2 });
    expect(bus.history.at(-1)?.data).toMatchObject({
      turns: 1,
      errorCode: 'agent_engine_failed',
    });
  });
});

describe('OrchestratorAgent: a non-conforming engine', () => {
  it('survives an answer without usage, text or tool calls', async () => {
    const engine: InferenceEngine = {
      engineId: 'loose',
      generate: async () => ({}) as never,
      stream: () => {
        throw new Error('not used');
      },
      listModels: async () => [],
      health: async () => true,
      close: async () => {},
    };
    const agent = new OrchestratorAgent({ engine, model: 'm' });
    expect(await agent.run('x')).toEqual({
      content: '',
      toolResults: [],
      turns: 1,
      metadata: { usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } },
      messages: [{ role: 'assistant', content: '' }],
    });
  });
});

describe('OrchestratorAgent: options', () => {
  it('refuses invalid settings with a JarvisError naming them', () => {
    const engine = new ScriptedEngine([]);
    const make = (extra: Record<string, unknown>) => () =>
      new OrchestratorAgent({ engine, model: 'm', ...extra });
    expect(make({ mode: 'freestyle' })).toThrow(
      /mode must be one of 'function_calling', 'structured'/,
    );
    expect(make({ maxToolCallsPerTurn: 0 })).toThrow(
      /maxToolCallsPerTurn must be a positive integer/,
    );
    expect(make({ maxParallelTools: 1.5 })).toThrow(JarvisError);
    const a = new ScriptedTool({ name: 'a', steps: [] });
    expect(make({ tools: [a, a] })).toThrow(/Two tools are named 'a'/);
  });

  it('exposes its settings', () => {
    const agent = new OrchestratorAgent({ engine: new ScriptedEngine([]), model: 'm' });
    expect(agent.agentId).toBe('orchestrator');
    expect(agent.mode).toBe('function_calling');
    expect(agent.maxTurns).toBe(10);
    expect(agent.tools).toEqual([]);
  });
});

describe('OrchestratorAgent: structured mode', () => {
  it('publishes the turn start and runs the structured loop without offering tools', async () => {
    const { engine, agent, bus } = setup(
      [
        'THOUGHT: I should compute.\nTOOL: calculator\nINPUT: {"expression": "2+2"}',
        'FINAL_ANSWER: 4',
      ],
      { mode: 'structured', tools: [new CalculatorTool()], systemPrompt: 'custom', maxTurns: 3 },
    );
    const controller = new AbortController();
    const result = await agent.run('2+2?', undefined, { signal: controller.signal });
    expect(result).toMatchObject({ content: '4', turns: 2 });
    expect(result.toolResults).toMatchObject([{ toolName: 'calculator', content: '4' }]);
    expect(engine.calls[0]?.messages).toEqual([
      { role: 'system', content: 'custom' },
      { role: 'user', content: '2+2?' },
    ]);
    expect(engine.calls[0]?.options).toEqual({
      model: 'm',
      temperature: 0.7,
      maxTokens: 1024,
      signal: controller.signal,
    });
    expect(engine.calls[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'Observation: 4' });
    expect(bus.history.map((event) => event.type)).toEqual([
      'agent_turn_start',
      'inference_start',
      'inference_end',
      'tool_call_start',
      'tool_call_end',
      'inference_start',
      'inference_end',
      'agent_turn_end',
    ]);
    expect(bus.history[0]?.data).toEqual({ agent: 'orchestrator', input: '2+2?' });
    engine.assertAllStepsConsumed();
  });

  it('streams a structured run as its result', async () => {
    const { agent } = setup(['FINAL_ANSWER: done'], { mode: 'structured' });
    const events = [];
    for await (const event of agent.stream('q')) events.push(event);
    expect(events).toEqual([
      { type: 'result', result: expect.objectContaining({ content: 'done' }) },
    ]);
  });
});
