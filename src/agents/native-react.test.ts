import { describe, expect, it } from 'vitest';
import {
  AgentError,
  EventBus,
  type InferenceEngine,
  JarvisError,
  type Tool,
} from '../core/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  type ScriptedEngineReply,
  ScriptedTool,
} from '../testing/index.js';
import { CalculatorTool, ThinkTool } from '../tools/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';
import {
  buildReActSystemPrompt,
  NATIVE_REACT_AGENT_KEYS,
  NativeReActAgent,
  type NativeReActAgentOptions,
} from './native-react.js';

function setup(
  replies: readonly ScriptedEngineReply[],
  options: Partial<NativeReActAgentOptions> = {},
) {
  const engine = new ScriptedEngine(replies);
  const bus = new EventBus({ recordHistory: true });
  const tools: readonly Tool[] = [new CalculatorTool(), new ThinkTool()];
  const agent = new NativeReActAgent({ engine, model: 'llama3.2:1b', tools, bus, ...options });
  return { engine, bus, agent };
}

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AgentError))
    throw new Error(`expected an AgentError, got ${String(error)}`);
  return error;
}

const CALL =
  'Thought: I need to add the numbers.\nAction: calculator\nAction Input: {"expression": "2+2"}';

describe('NativeReActAgent', () => {
  it('has the native_react key and the react alias', () => {
    const { agent } = setup([]);
    expect(agent.agentId).toBe('native_react');
    expect(NATIVE_REACT_AGENT_KEYS).toEqual(['native_react', 'react']);
  });

  it('describes the ReAct format and the tools in its system prompt', () => {
    const prompt = buildReActSystemPrompt([new CalculatorTool()]);
    expect(
      prompt.startsWith('You are a ReAct agent. For each step, respond with exactly one of:'),
    ).toBe(true);
    for (const part of [
      'Thought:',
      'Action:',
      'Action Input:',
      'Final Answer:',
      '### calculator',
      'expression',
    ]) {
      expect(prompt).toContain(part);
    }
  });

  it('runs an action, sends the observation back and returns the final answer', async () => {
    const { engine, agent } = setup([CALL, 'Thought: I know the answer.\nFinal Answer: 2 + 2 = 4']);
    const result = await agent.run('What is 2+2?');
    expect(result).toMatchObject({ content: '2 + 2 = 4', turns: 2 });
    expect(result.toolResults[0]).toMatchObject({ toolName: 'calculator', content: '4' });
    const system = {
      role: 'system',
      content: buildReActSystemPrompt([new CalculatorTool(), new ThinkTool()]),
    };
    const user = { role: 'user', content: 'What is 2+2?' };
    expect(engine.calls[0]?.messages).toEqual([system, user]);
    expect(engine.calls[1]?.messages).toEqual([
      system,
      user,
      { role: 'assistant', content: CALL },
      { role: 'user', content: 'Observation: 4' },
    ]);
    expect(engine.calls[0]?.options).toEqual({
      model: 'llama3.2:1b',
      temperature: 0.7,
      maxTokens: 1024,
    });
    engine.assertAllStepsConsumed();
  });

  it('publishes turn, inference and tool events in order', async () => {
    const { bus, agent } = setup([CALL, 'Final Answer: 4']);
    await agent.run('What is 2+2?');
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
    expect(bus.history[0]?.data).toEqual({ agent: 'native_react', input: 'What is 2+2?' });
    expect(bus.history[3]?.data).toMatchObject({ toolName: 'calculator', callId: 'react_1' });
    expect(bus.history[5]?.data).toMatchObject({ turn: 2 });
    expect(bus.history.at(-1)?.data).toEqual({ agent: 'native_react', turns: 2, contentLength: 1 });
  });

  it('forgives small-model formatting: markdown, case, plain text, inline calls, made-up observations', async () => {
    const sloppy = [
      '**Thought:** add them\n**Action:** `Calculator`\n**Action Input:** 15 * 7 + 23\nObservation: 130\nFinal',
      'thought: check\naction: calculator(sqrt(16))',
      'Thought: ponder\nAction: think\nAction Input: ```\nstep by step\n```',
      'final answer:   128',
    ];
    const { engine, agent } = setup(sloppy);
    const result = await agent.run('q');
    expect(result.content).toBe('128');
    expect(result.toolResults.map((r) => r.content)).toEqual(['128', '4.0', 'step by step']);
    expect(engine.calls[1]?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: '**Thought:** add them\n**Action:** `Calculator`\n**Action Input:** 15 * 7 + 23',
      },
      { role: 'user', content: 'Observation: 128' },
    ]);
  });

  it('tells the model about a plain-text input it cannot map, and continues', async () => {
    const { engine, agent } = setup([
      'Thought: compute\nAction: calculator\nAction Input: {"expr": "2+2"}',
      'Final Answer: 4',
    ]);
    const result = await agent.run('q');
    expect(result.toolResults[0]).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    expect(engine.calls[1]?.messages.at(-1)?.content).toMatch(
      /^Observation: Invalid arguments for tool 'calculator':[\s\S]*expression \(string, required\)/,
    );
  });

  it('returns the raw content when there is neither an action nor a final answer', async () => {
    const { agent } = setup(['The answer is 4.']);
    expect(await agent.run('q')).toMatchObject({
      content: 'The answer is 4.',
      turns: 1,
      toolResults: [],
    });
  });

  it('returns the max-turns result with summed usage', async () => {
    const reply = assistantReply('Action: calculator\nAction Input: 1+1', {
      usage: { promptTokens: 10, completionTokens: 2 },
    });
    const { agent, bus } = setup([reply, reply], { maxTurns: 2 });
    const result = await agent.run('q');
    expect(result).toMatchObject({
      content: MAX_TURNS_MESSAGE,
      turns: 2,
      metadata: {
        max_turns_exceeded: true,
        usage: { promptTokens: 20, completionTokens: 4, totalTokens: 24 },
      },
    });
    expect(bus.history.at(-1)?.data).toEqual({
      agent: 'native_react',
      turns: 2,
      maxTurnsExceeded: true,
    });
  });

  it('passes temperature, token limit and the custom system prompt', async () => {
    const { engine, agent } = setup(['Final Answer: ok'], {
      temperature: 0,
      maxTokens: 64,
      systemPrompt: 'Custom ReAct prompt.',
    });
    await agent.run('q');
    expect(engine.calls[0]?.options).toMatchObject({ temperature: 0, maxTokens: 64 });
    expect(engine.calls[0]?.messages[0]).toEqual({
      role: 'system',
      content: 'Custom ReAct prompt.',
    });
  });

  it('rejects a negative or fractional maxTurns', () => {
    const engine = new ScriptedEngine([]);
    for (const maxTurns of [-1, 1.5, Number.NaN]) {
      expect(() => new NativeReActAgent({ engine, model: 'm', maxTurns })).toThrow(JarvisError);
    }
  });

  it('fails with agent_engine_failed, the partial result and the end events when the engine fails', async () => {
    const { agent, bus } = setup([CALL, errorReply(new Error('connection reset'))]);
    const error = await rejection(agent.run('q'));
    expect(error.code).toBe('agent_engine_failed');
    expect(error.agentId).toBe('native_react');
    expect(error.partialResult).toMatchObject({ turns: 1, content: '' });
    expect(error.partialResult.toolResults).toHaveLength(1);
    expect(bus.history.slice(-2)).toMatchObject([
      { type: 'inference_end', data: { success: false } },
      {
        type: 'agent_turn_end',
        data: { turns: 1, error: expect.stringContaining('connection reset') },
      },
    ]);
  });

  it('fails with agent_cancelled when cancelled during a tool call, passing the signal on', async () => {
    const controller = new AbortController();
    const calculator = new ScriptedTool({
      name: 'calculator',
      parameters: new CalculatorTool().spec.parameters,
      steps: [
        (_args, context) => {
          expect(context?.signal.aborted).toBe(false);
          controller.abort();
          return '4';
        },
      ],
    });
    const engine = new ScriptedEngine([
      (call) => {
        expect(call.options.signal).toBe(controller.signal);
        return CALL;
      },
    ]);
    const agent = new NativeReActAgent({ engine, model: 'm', tools: [calculator] });
    const error = await rejection(agent.run('q', undefined, { signal: controller.signal }));
    expect(error).toMatchObject({ code: 'agent_cancelled', name: 'AbortError' });
    expect(error.partialResult.turns).toBe(1);
    expect(error.partialResult.toolResults).toHaveLength(1);
    expect(engine.calls).toHaveLength(1);
  });

  // Drift fixed: the text-protocol and code loops waited for an engine that ignores its signal; the
  // orchestrator did not. All loops now stop waiting as soon as the run is cancelled.
  it('is cancelled promptly even when the engine ignores the signal', async () => {
    const controller = new AbortController();
    const deaf: InferenceEngine = {
      engineId: 'deaf',
      generate: () => {
        controller.abort(new Error('user stopped'));
        return new Promise<never>(() => {});
      },
      stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) }),
      listModels: async () => [],
      health: async () => true,
      close: async () => {},
    };
    const bus = new EventBus({ recordHistory: true });
    const agent = new NativeReActAgent({ engine: deaf, model: 'm', bus });
    const error = await rejection(agent.run('q', undefined, { signal: controller.signal }));
    expect(error).toMatchObject({ code: 'agent_cancelled', partialResult: { turns: 0 } });
    // Drift fixed: a failed run's agent_turn_end carries errorCode, as the orchestrator's always did.
    expect(bus.history.at(-1)).toMatchObject({
      type: 'agent_turn_end',
      data: { agent: 'native_react', turns: 0, errorCode: 'agent_cancelled' },
    });
  });
});
