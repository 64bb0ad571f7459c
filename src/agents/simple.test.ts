import { describe, expect, it } from 'vitest';
import {
  AgentError,
  Conversation,
  createAgentContext,
  EngineError,
  EventBus,
  type InferenceEngine,
} from '../core/index.js';
import { assistantReply, errorReply, ScriptedEngine } from '../testing/index.js';
import { SimpleAgent } from './simple.js';

function setup(engine: InferenceEngine, extra: { temperature?: number; maxTokens?: number } = {}) {
  const bus = new EventBus({ recordHistory: true });
  return { bus, agent: new SimpleAgent({ engine, model: 'm', bus, ...extra }) };
}

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

describe('SimpleAgent', () => {
  it('makes one engine call with the context conversation, then the input, and no tools', async () => {
    const engine = new ScriptedEngine([
      assistantReply('<think>let me see</think>Paris', {
        usage: { promptTokens: 7, completionTokens: 3 },
      }),
    ]);
    const { agent } = setup(engine);
    const conversation = new Conversation({
      messages: [
        { role: 'system', content: 'memory: France' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    });
    const result = await agent.run('Capital of France?', createAgentContext({ conversation }));
    expect(result).toEqual({
      content: 'Paris',
      toolResults: [],
      turns: 1,
      metadata: { usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 } },
      messages: [{ role: 'assistant', content: 'Paris' }],
    });
    expect(engine.calls).toHaveLength(1);
    expect(engine.calls[0]?.method).toBe('generate');
    expect(engine.calls[0]?.messages).toEqual([
      { role: 'system', content: 'memory: France' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    expect(engine.calls[0]?.options).toEqual({ model: 'm', temperature: 0.7, maxTokens: 1024 });
    expect(agent.agentId).toBe('simple');
    engine.assertAllStepsConsumed();
  });

  it('uses the given temperature and token limit', async () => {
    const engine = new ScriptedEngine(['ok']);
    const { agent } = setup(engine, { temperature: 0, maxTokens: 64 });
    await agent.run('x');
    expect(engine.calls[0]?.options).toEqual({ model: 'm', temperature: 0, maxTokens: 64 });
  });

  it('publishes turn start, inference events and turn end with the content length', async () => {
    const engine = new ScriptedEngine(['four']);
    const { agent, bus } = setup(engine);
    await agent.run('2+2?');
    expect(bus.history.map((event) => event.type)).toEqual([
      'agent_turn_start',
      'inference_start',
      'inference_end',
      'agent_turn_end',
    ]);
    expect(bus.history[0]?.data).toEqual({ agent: 'simple', input: '2+2?' });
    expect(bus.history[1]?.data).toEqual({ model: 'm', engine: 'scripted', turn: 1 });
    expect(bus.history[3]?.data).toEqual({ agent: 'simple', turns: 1, contentLength: 4 });
  });

  it('works without a bus', async () => {
    const engine = new ScriptedEngine(['fine']);
    const agent = new SimpleAgent({ engine, model: 'm' });
    expect((await agent.run('how are you?')).content).toBe('fine');
  });

  it('turns an engine failure into agent_engine_failed with a partial result, and still ends the turn', async () => {
    const cause = new EngineError({
      code: 'engine_unavailable',
      engineId: 'scripted',
      address: 'in-process',
      detail: 'connection refused',
    });
    const engine = new ScriptedEngine([errorReply(cause)]);
    const { agent, bus } = setup(engine);
    const error = await rejection(agent.run('hello'));
    expect(error.code).toBe('agent_engine_failed');
    expect(error.agentId).toBe('simple');
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('connection refused');
    expect(error.partialResult).toEqual({
      content: '',
      toolResults: [],
      turns: 0,
      metadata: { usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } },
      messages: [],
    });
    expect(bus.history.at(-1)).toMatchObject({
      type: 'agent_turn_end',
      data: { agent: 'simple', turns: 0, errorCode: 'agent_engine_failed', error: error.message },
    });
  });

  it('passes the signal to the engine', async () => {
    const engine = new ScriptedEngine(['ok']);
    const { agent } = setup(engine);
    const controller = new AbortController();
    await agent.run('x', undefined, { signal: controller.signal });
    expect(engine.calls[0]?.options.signal).toBe(controller.signal);
  });

  it('does not call the engine when the run is cancelled before it starts', async () => {
    const engine = new ScriptedEngine([]);
    const { agent, bus } = setup(engine);
    const error = await rejection(agent.run('x', undefined, { signal: AbortSignal.abort() }));
    expect(error.code).toBe('agent_cancelled');
    expect(error.name).toBe('AbortError');
    expect(error.partialResult.turns).toBe(0);
    expect(engine.calls).toHaveLength(0);
    expect(bus.history.at(-1)?.data).toMatchObject({ errorCode: 'agent_cancelled', turns: 0 });
  });

  it('rejects promptly with agent_cancelled when aborted during the engine call, even if the engine ignores it', async () => {
    const engine = new ScriptedEngine([() => new Promise<never>(() => {})]);
    const { agent } = setup(engine);
    const controller = new AbortController();
    const running = agent.run('x', undefined, { signal: controller.signal });
    await Promise.resolve();
    controller.abort(new Error('user pressed stop'));
    const error = await rejection(running);
    expect(error.code).toBe('agent_cancelled');
    expect(error.name).toBe('AbortError');
    expect(error.partialResult).toMatchObject({ content: '', turns: 0 });
    expect((error.cause as Error).message).toBe('user pressed stop');
  });

  it('reports a cancellation the engine noticed as agent_cancelled', async () => {
    const controller = new AbortController();
    const engine = new ScriptedEngine([
      () => {
        controller.abort();
        return 'too late';
      },
    ]);
    const { agent } = setup(engine);
    const error = await rejection(agent.run('x', undefined, { signal: controller.signal }));
    expect(error.code).toBe('agent_cancelled');
  });
});

describe('SimpleAgent.stream', () => {
  it('yields the answer as it arrives on the engine stream, then the result', async () => {
    const engine = new ScriptedEngine([
      assistantReply('The capital is Paris', { reasoning: 'easy one' }),
    ]);
    const { agent, bus } = setup(engine);
    const events = [];
    for await (const event of agent.stream('Capital of France?')) events.push(event);
    expect(engine.calls.map((call) => call.method)).toEqual(['stream']);
    const text = events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : []));
    expect(text.length).toBeGreaterThan(1);
    expect(text.join('')).toBe('The capital is Paris');
    expect(events.some((event) => event.type === 'reasoning_delta')).toBe(true);
    expect(events[0]).toEqual({ type: 'turn_start', turn: 1 });
    const last = events.at(-1);
    expect(last?.type === 'result' && last.result).toMatchObject({
      content: 'The capital is Paris',
      turns: 1,
    });
    expect(bus.history.map((event) => event.type)).toEqual([
      'agent_turn_start',
      'inference_start',
      'inference_end',
      'agent_turn_end',
    ]);
  });

  it('throws agent_engine_failed when the stream fails', async () => {
    const { agent } = setup(new ScriptedEngine([errorReply('engine_unavailable')]));
    const error = await rejection(
      (async () => {
        for await (const _event of agent.stream('x')) {
          // drain
        }
      })(),
    );
    expect(error.code).toBe('agent_engine_failed');
  });
});
