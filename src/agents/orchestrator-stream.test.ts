import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type AgentStreamEvent,
  EventBus,
  type InferenceEngine,
  type StreamChunk,
  type ToolContext,
} from '../core/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  ScriptedTool,
  type ScriptedToolStep,
  toolCallReply,
} from '../testing/index.js';
import { OrchestratorAgent, type OrchestratorAgentOptions } from './orchestrator.js';
import { collectStream, EventChannel, linkSignal } from './orchestrator-stream.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function setup(engine: InferenceEngine, extra: Partial<OrchestratorAgentOptions> = {}) {
  const bus = new EventBus({ recordHistory: true });
  return { bus, agent: new OrchestratorAgent({ engine, model: 'm', bus, ...extra }) };
}

function tool(name: string, steps: readonly ScriptedToolStep[]) {
  return new ScriptedTool({ name, steps });
}

async function collect(events: AsyncIterable<AgentStreamEvent>): Promise<AgentStreamEvent[]> {
  const seen: AgentStreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** An engine whose stream never ends on its own and reports when it was closed. */
function endlessEngine() {
  const closed = deferred();
  const engine: InferenceEngine = {
    engineId: 'endless',
    generate: () => Promise.reject(new Error('generate is not used here')),
    async *stream(): AsyncGenerator<StreamChunk> {
      try {
        for (let index = 0; ; index += 1) {
          yield { type: 'text_delta', text: `w${index} ` };
          await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        closed.resolve();
      }
    },
    listModels: async () => [],
    health: async () => true,
    close: async () => {},
  };
  return { engine, closed: closed.promise };
}

describe('OrchestratorAgent.stream', () => {
  it('yields the progress of the same loop as run, then the result', async () => {
    const search = tool('search', ['found']);
    const engine = new ScriptedEngine([
      assistantReply('Let me check.', {
        reasoning: 'hmm',
        toolCalls: [{ id: 'c1', name: 'search', arguments: {} }],
      }),
      'The answer.',
    ]);
    const { agent, bus } = setup(engine, { tools: [search] });
    const events = await collect(agent.stream('q'));
    const toolCall = { id: 'c1', name: 'search', arguments: '{}' };
    const last = events.at(-1);
    expect(last?.type).toBe('result');
    const result = last?.type === 'result' ? last.result : undefined;
    expect(events.slice(0, -1)).toEqual([
      { type: 'turn_start', turn: 1 },
      { type: 'reasoning_delta', turn: 1, text: 'hmm' },
      { type: 'text_delta', turn: 1, text: 'Let ' },
      { type: 'text_delta', turn: 1, text: 'me ' },
      { type: 'text_delta', turn: 1, text: 'check.' },
      { type: 'tool_call_start', turn: 1, toolCall },
      { type: 'tool_call_end', turn: 1, toolCall, result: result?.toolResults[0] },
      { type: 'turn_end', turn: 1, content: 'Let me check.' },
      { type: 'turn_start', turn: 2 },
      { type: 'text_delta', turn: 2, text: 'The ' },
      { type: 'text_delta', turn: 2, text: 'answer.' },
      { type: 'turn_end', turn: 2, content: 'The answer.' },
    ]);
    expect(result).toMatchObject({ content: 'The answer.', turns: 2 });
    expect(result?.toolResults).toMatchObject([{ content: 'found', success: true }]);
    expect(engine.calls.map((call) => call.method)).toEqual(['stream', 'stream']);
    expect(engine.calls[1]?.messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'Let me check.', toolCalls: [toolCall] },
      { role: 'tool', content: 'found', toolCallId: 'c1', name: 'search' },
    ]);
    expect(engine.calls[0]?.options).toMatchObject({ model: 'm', tools: [expect.any(Object)] });
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
    expect(bus.history[2]?.data).toMatchObject({ turn: 1, success: true });
    engine.assertAllStepsConsumed();
  });

  it('gives a streamed run the same result as run', async () => {
    const replies = () => [
      toolCallReply({ id: 'c1', name: 'echo', arguments: {} }),
      assistantReply('done', { usage: { promptTokens: 3, completionTokens: 1 } }),
    ];
    // A stopped clock makes the measured latencies equal too.
    const clock = { nowMs: () => 0, monotonicMs: () => 0 };
    const viaRun = await setup(new ScriptedEngine(replies()), {
      tools: [tool('echo', ['e'])],
      clock,
    }).agent.run('q');
    const events = await collect(
      setup(new ScriptedEngine(replies()), { tools: [tool('echo', ['e'])], clock }).agent.stream(
        'q',
      ),
    );
    const last = events.at(-1);
    expect(last?.type === 'result' ? last.result : undefined).toEqual(viaRun);
  });

  it('closes the engine stream and cancels the run when the consumer stops reading', async () => {
    const { engine, closed } = endlessEngine();
    const { agent, bus } = setup(engine);
    const seen: AgentStreamEvent[] = [];
    for await (const event of agent.stream('q')) {
      seen.push(event);
      if (event.type === 'text_delta') break;
    }
    await closed;
    expect(seen).toEqual([
      { type: 'turn_start', turn: 1 },
      { type: 'text_delta', turn: 1, text: 'w0 ' },
    ]);
    expect(bus.history.at(-1)).toMatchObject({
      type: 'agent_turn_end',
      data: { errorCode: 'agent_cancelled', turns: 0 },
    });
  });

  it('aborts the running tools when the consumer stops reading', async () => {
    let toolSignal: AbortSignal | undefined;
    const hang = tool('hang', [
      (_args: unknown, context: ToolContext | undefined) => {
        toolSignal = context?.signal;
        return new Promise<string>(() => {});
      },
    ]);
    const engine = new ScriptedEngine([toolCallReply({ name: 'hang', arguments: {} })]);
    const { agent } = setup(engine, { tools: [hang] });
    for await (const event of agent.stream('q')) {
      if (event.type === 'tool_call_start') break;
    }
    expect(toolSignal?.aborted).toBe(true);
    expect(engine.calls).toHaveLength(1);
  });

  it('throws agent_cancelled from the iterator when the caller aborts', async () => {
    const { engine } = endlessEngine();
    const { agent } = setup(engine);
    const controller = new AbortController();
    const seen: AgentStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of agent.stream('q', undefined, { signal: controller.signal })) {
        seen.push(event);
        if (seen.length === 2) controller.abort(new Error('enough'));
      }
    })();
    const error = await reading.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('agent_cancelled');
    expect((error as AgentError).name).toBe('AbortError');
    expect(((error as AgentError).cause as Error).message).toBe('enough');
  });

  it('throws agent_engine_failed after the events that came before the failure', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ id: 'c1', name: 'work', arguments: {} }),
      errorReply('engine_stream_cut'),
    ]);
    const { agent } = setup(engine, { tools: [tool('work', ['w'])] });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of agent.stream('q')) seen.push(event.type);
    })().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('agent_engine_failed');
    expect((error as AgentError).partialResult).toMatchObject({ turns: 1, toolResults: [{}] });
    expect(seen).toEqual([
      'turn_start',
      'tool_call_start',
      'tool_call_end',
      'turn_end',
      'turn_start',
    ]);
  });

  it('ends a streamed run on the turn limit with the max-turns result', async () => {
    const engine = new ScriptedEngine([toolCallReply({ name: 'work', arguments: {} })]);
    const { agent } = setup(engine, { tools: [tool('work', ['w'])], maxTurns: 1 });
    const events = await collect(agent.stream('q'));
    expect(events.map((event) => event.type)).toEqual([
      'turn_start',
      'tool_call_start',
      'tool_call_end',
      'turn_end',
      'result',
    ]);
    expect(events.at(-1)).toMatchObject({ result: { metadata: { max_turns_exceeded: true } } });
  });
});

describe('collectStream', () => {
  it('assembles the answer when the stream has no end chunk', async () => {
    const engine: InferenceEngine = {
      ...endlessEngine().engine,
      async *stream(): AsyncGenerator<StreamChunk> {
        yield { type: 'text_delta', text: 'hi' };
        yield { type: 'tool_call', toolCall: { id: 'x', name: 't', arguments: '{}' } };
      },
    };
    const emitted: AgentStreamEvent[] = [];
    const result = await collectStream({
      engine,
      messages: [],
      options: { model: 'm' },
      turn: 3,
      emit: (event) => emitted.push(event),
    });
    expect(result).toEqual({
      content: 'hi',
      toolCalls: [{ id: 'x', name: 't', arguments: '{}' }],
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      finishReason: 'tool_calls',
      model: 'm',
      ttftSeconds: 0,
    });
    expect(emitted).toEqual([{ type: 'text_delta', turn: 3, text: 'hi' }]);
  });
});

describe('EventChannel', () => {
  it('delivers pushed events in order, then ends', async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    const reading = (async () => {
      const seen: number[] = [];
      for await (const value of channel.drain()) seen.push(value);
      return seen;
    })();
    await Promise.resolve();
    channel.push(2);
    channel.push(3);
    channel.end();
    channel.push(4);
    expect(await reading).toEqual([1, 2, 3]);
  });

  it('throws the failure after the events pushed before it', async () => {
    const channel = new EventChannel<string>();
    channel.push('a');
    channel.fail(new Error('broken'));
    channel.end();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const value of channel.drain()) seen.push(value);
      })(),
    ).rejects.toThrow('broken');
    expect(seen).toEqual(['a']);
  });
});

describe('linkSignal', () => {
  it('aborts the inner controller with the outer reason until unlinked', () => {
    const outer = new AbortController();
    const inner = new AbortController();
    const unlink = linkSignal(outer.signal, inner);
    outer.abort('why');
    expect(inner.signal.reason).toBe('why');

    const later = new AbortController();
    const untouched = new AbortController();
    linkSignal(later.signal, untouched)();
    later.abort();
    expect(untouched.signal.aborted).toBe(false);

    const already = new AbortController();
    linkSignal(AbortSignal.abort('done'), already);
    expect(already.signal.reason).toBe('done');
    expect(linkSignal(undefined, new AbortController())).toBeTypeOf('function');
    unlink();
  });
});
