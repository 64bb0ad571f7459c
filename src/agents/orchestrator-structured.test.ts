import { describe, expect, it } from 'vitest';
import {
  AgentError,
  Conversation,
  createAgentContext,
  EngineError,
  EventBus,
  type Tool,
} from '../core/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  type ScriptedEngineReply,
  ScriptedTool,
} from '../testing/index.js';
import { CalculatorTool, ThinkTool, ToolExecutor } from '../tools/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';
import { buildStructuredSystemPrompt } from './orchestrator-prompt.js';
import { runStructuredLoop, type StructuredLoopDeps } from './orchestrator-structured.js';

interface Setup {
  readonly engine: ScriptedEngine;
  readonly bus: EventBus;
  readonly deps: StructuredLoopDeps;
}

function setup(
  replies: readonly ScriptedEngineReply[],
  options: { tools?: readonly Tool[]; maxTurns?: number; systemPrompt?: string } = {},
): Setup {
  const engine = new ScriptedEngine(replies);
  const bus = new EventBus({ recordHistory: true });
  const tools = options.tools ?? [new CalculatorTool()];
  const deps: StructuredLoopDeps = {
    agentId: 'orchestrator',
    tools,
    executor: new ToolExecutor(tools, { bus }),
    maxTurns: options.maxTurns ?? 10,
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    generate: (messages, _turn, signal) =>
      engine.generate(messages, { model: 'qwen2.5:0.5b', ...(signal ? { signal } : {}) }),
    publishTurnEnd: (data) => bus.publish('agent_turn_end', { agent: 'orchestrator', ...data }),
  };
  return { engine, bus, deps };
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

const PLAIN_CALL =
  'THOUGHT: I need to calculate 15 * 7 + 23.\nTOOL: calculator\nINPUT: 15 * 7 + 23';
const FINAL = 'THOUGHT: The calculator says 128.\nFINAL_ANSWER: 15 * 7 + 23 = 128';

describe('runStructuredLoop', () => {
  it('gives a plain-text INPUT to the single string parameter and sends the exact messages', async () => {
    const { engine, deps } = setup([PLAIN_CALL, FINAL]);
    const result = await runStructuredLoop(deps, 'What is 15 * 7 + 23?', undefined, {});
    expect(result).toMatchObject({ content: '15 * 7 + 23 = 128', turns: 2 });
    expect(result.toolResults).toHaveLength(1);
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'calculator',
      success: true,
      content: '128',
    });
    const system = { role: 'system', content: buildStructuredSystemPrompt(deps.tools) };
    const user = { role: 'user', content: 'What is 15 * 7 + 23?' };
    expect(engine.calls[0]?.messages).toEqual([system, user]);
    expect(engine.calls[1]?.messages).toEqual([
      system,
      user,
      { role: 'assistant', content: PLAIN_CALL },
      { role: 'user', content: 'Observation: 128' },
    ]);
    expect(engine.calls[0]?.options.tools).toBeUndefined();
    engine.assertAllStepsConsumed();
  });

  it('sends the structured system prompt with the tool sections', async () => {
    const { engine, deps } = setup(['FINAL_ANSWER: hi']);
    await runStructuredLoop(deps, 'hi', undefined, {});
    const prompt = engine.calls[0]?.messages[0]?.content ?? '';
    expect(prompt).toContain('### calculator');
    expect(prompt).toContain('expression');
    for (const heading of [
      'AVAILABLE TOOLS',
      'TOOL SELECTION GUIDE',
      'RESPONSE FORMAT',
      'CRITICAL RULES',
    ]) {
      expect(prompt).toContain(`=== ${heading} ===`);
    }
  });

  it('uses the given system prompt instead, and puts the context conversation before the input', async () => {
    const { engine, deps } = setup(['FINAL ANSWER: Paris'], { systemPrompt: 'Be brief.' });
    const conversation = new Conversation({ messages: [{ role: 'user', content: 'earlier' }] });
    const result = await runStructuredLoop(
      deps,
      'Capital?',
      createAgentContext({ conversation }),
      {},
    );
    expect(result.content).toBe('Paris');
    expect(engine.calls[0]?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'earlier' },
      { role: 'user', content: 'Capital?' },
    ]);
  });

  it('uses a fenced JSON INPUT as is and publishes the executor events with id structured_<turn>', async () => {
    const call =
      'THOUGHT: compute\nTOOL: calculator\nINPUT: ```json\n{"expression": "sqrt(144) + 3**2"}\n```';
    const { deps, bus } = setup([call, 'Final Answer: 21.0']);
    const result = await runStructuredLoop(deps, 'q', undefined, {});
    expect(result.toolResults[0]?.content).toBe('21.0');
    const events = bus.history.filter((event) => event.type.startsWith('tool_call'));
    const callIdOf = (data: unknown) => (data as { readonly callId?: unknown }).callId;
    expect(events.map((event) => [event.type, callIdOf(event.data)])).toEqual([
      ['tool_call_start', 'structured_1'],
      ['tool_call_end', 'structured_1'],
    ]);
    expect(events[0]?.data).toMatchObject({ arguments: { expression: 'sqrt(144) + 3**2' } });
    expect(bus.history.at(-1)).toMatchObject({
      type: 'agent_turn_end',
      data: { agent: 'orchestrator', turns: 2, contentLength: 4 },
    });
  });

  it('reports an unknown tool as an observation and keeps going', async () => {
    const { engine, deps } = setup([
      'THOUGHT: count\nTOOL: abacus\nINPUT: 2+2',
      'THOUGHT: wrong tool\nTOOL: calculator\nINPUT: 2+2',
      'FINAL_ANSWER: 4',
    ]);
    const result = await runStructuredLoop(deps, '2+2?', undefined, {});
    expect(result.content).toBe('4');
    expect(result.toolResults.map((r) => r.success)).toEqual([false, true]);
    expect(engine.calls[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Observation: Unknown tool: abacus (available tools: calculator)',
    });
  });

  it('does not treat "tool:" in THOUGHT prose as a call', async () => {
    const content = 'THOUGHT: The right tool: calculator is overkill; 2 + 2 is 4.';
    const { deps } = setup([content]);
    const result = await runStructuredLoop(deps, '2+2?', undefined, {});
    expect(result).toMatchObject({ content, turns: 1, toolResults: [] });
  });

  it('returns a reply without protocol markers as the answer, think blocks removed', async () => {
    const { deps } = setup(['<think>easy one</think>\nThe capital of France is Paris.']);
    const result = await runStructuredLoop(deps, 'Capital?', undefined, {});
    expect(result.content).toBe('The capital of France is Paris.');
  });

  it('calls a no-argument tool with {} when INPUT is missing', async () => {
    const clock = new ScriptedTool({ name: 'clock', steps: ['12:00'] });
    const { deps } = setup(['THOUGHT: check the time\nTOOL: clock', 'FINAL_ANSWER: noon'], {
      tools: [clock],
    });
    const result = await runStructuredLoop(deps, 'Time?', undefined, {});
    expect(result.content).toBe('noon');
    expect(clock.calls).toEqual([{}]);
  });

  it('sums usage over the turns', async () => {
    const { deps } = setup([
      assistantReply(PLAIN_CALL, { usage: { promptTokens: 100, completionTokens: 20 } }),
      assistantReply(FINAL, { usage: { promptTokens: 130, completionTokens: 10 } }),
    ]);
    const result = await runStructuredLoop(deps, 'q', undefined, {});
    expect(result.metadata.usage).toEqual({
      promptTokens: 230,
      completionTokens: 30,
      totalTokens: 260,
    });
  });

  it('keeps the last reasoning on max turns instead of discarding it', async () => {
    const { deps, bus } = setup(
      [
        'THOUGHT: first\nTOOL: calculator\nINPUT: 1+1',
        'THOUGHT: 15*7+23 is 128, checking once more\nTOOL: calculator\nINPUT: 15*7+23',
      ],
      { maxTurns: 2 },
    );
    const result = await runStructuredLoop(deps, 'q', undefined, {});
    expect(result).toMatchObject({
      content: '15*7+23 is 128, checking once more',
      turns: 2,
      metadata: { max_turns_exceeded: true },
    });
    expect(result.toolResults).toHaveLength(2);
    expect(bus.history.at(-1)?.data).toEqual({
      agent: 'orchestrator',
      turns: 2,
      maxTurnsExceeded: true,
    });
  });

  it('returns the default message on max turns when the model wrote no reasoning', async () => {
    const { deps } = setup(['TOOL: calculator\nINPUT: 1'], { maxTurns: 1 });
    const result = await runStructuredLoop(deps, 'q', undefined, {});
    expect(result.content).toBe(MAX_TURNS_MESSAGE);
    expect(result.metadata.max_turns_exceeded).toBe(true);
  });

  it('returns the max-turns result without calling the engine when maxTurns is 0', async () => {
    const { engine, deps } = setup([], { maxTurns: 0 });
    const result = await runStructuredLoop(deps, 'q', undefined, {});
    expect(result).toMatchObject({ content: MAX_TURNS_MESSAGE, turns: 0 });
    expect(engine.calls).toHaveLength(0);
  });

  it('fails with agent_engine_failed and the partial result when the engine fails', async () => {
    const { deps, bus } = setup([
      assistantReply(PLAIN_CALL, { usage: { promptTokens: 5, completionTokens: 5 } }),
      errorReply('engine_unavailable'),
    ]);
    const error = await rejection(runStructuredLoop(deps, 'q', undefined, {}));
    expect(error.code).toBe('agent_engine_failed');
    expect(error.cause).toBeInstanceOf(EngineError);
    expect(error.message).toContain('turn 2');
    expect(error.partialResult).toMatchObject({
      turns: 1,
      metadata: { usage: { totalTokens: 10 } },
    });
    expect(error.partialResult.toolResults[0]?.content).toBe('128');
    expect(bus.history.at(-1)).toMatchObject({
      type: 'agent_turn_end',
      data: { turns: 1, error: expect.stringContaining('engine_unavailable') },
    });
  });

  it('fails with agent_cancelled when the signal aborts during the engine call', async () => {
    const controller = new AbortController();
    const { deps } = setup([
      () => {
        controller.abort();
        return PLAIN_CALL;
      },
    ]);
    const error = await rejection(
      runStructuredLoop(deps, 'q', undefined, { signal: controller.signal }),
    );
    expect(error).toMatchObject({ code: 'agent_cancelled', name: 'AbortError' });
    expect(error.partialResult).toMatchObject({ turns: 0, toolResults: [] });
  });

  it('fails with agent_cancelled when the signal aborts during a tool, keeping its result', async () => {
    const controller = new AbortController();
    const slow = new ScriptedTool({
      name: 'think',
      parameters: new ThinkTool().spec.parameters,
      steps: [() => new Promise<string>(() => controller.abort())],
    });
    const { engine, deps } = setup(['TOOL: think\nINPUT: ponder'], { tools: [slow] });
    const error = await rejection(
      runStructuredLoop(deps, 'q', undefined, { signal: controller.signal }),
    );
    expect(error.code).toBe('agent_cancelled');
    expect(error.partialResult.turns).toBe(1);
    expect(error.partialResult.toolResults[0]).toMatchObject({
      success: false,
      errorCode: 'cancelled',
    });
    expect(slow.calls).toEqual([{ thought: 'ponder' }]);
    expect(engine.calls).toHaveLength(1);
  });

  it('does not call the engine when the signal is already aborted', async () => {
    const { engine, deps } = setup([]);
    const error = await rejection(
      runStructuredLoop(deps, 'q', undefined, { signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('agent_cancelled');
    expect(engine.calls).toHaveLength(0);
  });
});
