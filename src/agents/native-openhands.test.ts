import { beforeAll, describe, expect, it } from 'vitest';
import { AgentError, EventBus, type Tool } from '../core/index.js';
import { errorReply, ScriptedEngine, type ScriptedEngineReply } from '../testing/index.js';
import { CalculatorTool, CodeInterpreterTool } from '../tools/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';
import {
  buildOpenHandsSystemPrompt,
  extractPythonBlock,
  NativeOpenHandsAgent,
  type NativeOpenHandsAgentOptions,
} from './native-openhands.js';

const interpreter = new CodeInterpreterTool();
let sandboxReason: string | undefined;

beforeAll(async () => {
  const selection = await interpreter.sandbox();
  sandboxReason = selection.ok ? undefined : selection.reason;
  if (sandboxReason !== undefined && process.env.CI === 'true')
    throw new Error(`bubblewrap and python3 are required in CI: ${sandboxReason}`);
});

function setup(
  replies: readonly ScriptedEngineReply[],
  options: Partial<NativeOpenHandsAgentOptions> = {},
) {
  const engine = new ScriptedEngine(replies);
  const bus = new EventBus({ recordHistory: true });
  const tools: readonly Tool[] = [interpreter, new CalculatorTool()];
  const agent = new NativeOpenHandsAgent({ engine, model: 'm', tools, bus, ...options });
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

/** The last message sent on engine call `index`. */
function lastSent(engine: ScriptedEngine, index: number): string {
  return engine.calls[index]?.messages.at(-1)?.content ?? '';
}

const CODE = 'Let me compute.\n```python\nprint(6 * 7)\n```';

describe('NativeOpenHandsAgent', () => {
  it('has the native_openhands key, CodeAct defaults and the tools in its prompt', () => {
    const { agent } = setup([]);
    expect(agent.agentId).toBe('native_openhands');
    expect(agent.maxTurns).toBe(3);
    const prompt = buildOpenHandsSystemPrompt([interpreter, new CalculatorTool()]);
    expect(prompt).toContain('```python');
    expect(prompt).toContain('### code_interpreter');
    expect(prompt).toContain('### calculator');
  });

  it('extracts python blocks, not other fences', () => {
    expect(extractPythonBlock('```python\nx = 1\n```')).toBe('x = 1\n');
    expect(extractPythonBlock('```json\n{}\n```')).toBeUndefined();
    expect(extractPythonBlock('```\nx = 1\n```', true)).toBe('x = 1\n');
  });

  it('runs the code, feeds the output back and returns the reply without code', async () => {
    const { engine, agent, bus } = setup([CODE, '<think>it printed 42</think>The answer is 42.']);
    const result = await agent.run('What is 6 times 7?');
    expect(result.content).toBe('The answer is 42.');
    expect(result.turns).toBe(2);
    expect(engine.calls[0]?.options).toMatchObject({ model: 'm', maxTokens: 2048 });
    expect(engine.calls[1]?.messages.at(-2)).toEqual({ role: 'assistant', content: CODE });
    if (sandboxReason !== undefined) {
      expect(result.toolResults[0]).toMatchObject({ toolName: 'code_interpreter', success: false });
      expect(lastSent(engine, 1)).toContain('Code interpreter unavailable');
      return;
    }
    expect(result.toolResults[0]).toMatchObject({ toolName: 'code_interpreter', success: true });
    expect(lastSent(engine, 1)).toMatch(/^Output:\n42\n/);
    const started = bus.history.find((event) => event.type === 'tool_call_start');
    expect(started?.data).toMatchObject({ toolName: 'code_interpreter' });
  });

  it('feeds a traceback back when the code fails', async () => {
    const { engine, agent } = setup([
      '```python\nimport json\njson.loads("{")\n```',
      'The JSON was invalid.',
    ]);
    const result = await agent.run('Parse it');
    expect(result.content).toBe('The JSON was invalid.');
    expect(result.toolResults[0]?.success).toBe(false);
    if (sandboxReason !== undefined) {
      expect(lastSent(engine, 1)).toContain('Code interpreter unavailable');
      return;
    }
    expect(lastSent(engine, 1)).toContain('Traceback');
    expect(lastSent(engine, 1)).toContain('JSONDecodeError');
  });

  it('answers a code block with an observation when there is no code_interpreter tool', async () => {
    const { engine, agent } = setup([CODE, 'I cannot run code; 6 * 7 = 42.'], {
      tools: [new CalculatorTool()],
    });
    const result = await agent.run('What is 6 times 7?');
    expect(result.content).toBe('I cannot run code; 6 * 7 = 42.');
    expect(lastSent(engine, 1)).toContain('Code execution is unavailable');
    expect(result.toolResults[0]).toMatchObject({ toolName: 'code_interpreter', success: false });
  });

  it('calls other tools with Action / Action Input and feeds back the result', async () => {
    const { engine, agent } = setup([
      'Action: calculator\nAction Input: {"expression": "2+2"}',
      'It is 4.',
    ]);
    const result = await agent.run('2+2?');
    expect(result.content).toBe('It is 4.');
    expect(lastSent(engine, 1)).toBe('Result: 4');
    expect(result.toolResults[0]).toMatchObject({ toolName: 'calculator', content: '4' });
  });

  it('returns the text after Final Answer: when the model writes one', async () => {
    const { agent } = setup(['Thought: easy.\nFinal Answer: 42']);
    expect((await agent.run('x')).content).toBe('42');
  });

  it('truncates long output with a marker', async () => {
    const { engine, agent } = setup(['```python\nprint("x" * 9000)\n```', 'done']);
    await agent.run('big');
    if (sandboxReason !== undefined) {
      expect(lastSent(engine, 1)).toContain('Code interpreter unavailable');
      return;
    }
    const sent = lastSent(engine, 1);
    expect(sent.length).toBeLessThan(4200);
    expect(sent).toContain('[output truncated');
  });

  it('stops at the turn limit with the last content and max_turns_exceeded', async () => {
    const { agent } = setup([CODE], { maxTurns: 1 });
    const result = await agent.run('loop');
    expect(result.content).toBe(CODE);
    expect(result.metadata).toMatchObject({ max_turns_exceeded: true });
    const empty = setup([], { maxTurns: 0 });
    const none = await empty.agent.run('x');
    expect(none.content).toBe(MAX_TURNS_MESSAGE);
  });

  it('sums usage over the turns', async () => {
    const { agent } = setup([
      {
        type: 'answer',
        content: CODE,
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      },
      {
        type: 'answer',
        content: 'ok',
        usage: { promptTokens: 20, completionTokens: 1, totalTokens: 21 },
      },
    ]);
    const result = await agent.run('x');
    expect(result.metadata.usage).toMatchObject({
      promptTokens: 30,
      completionTokens: 6,
      totalTokens: 36,
    });
  });

  it('fails with agent_engine_failed and the partial result when the engine fails', async () => {
    const { agent } = setup([CODE, errorReply(new Error('boom'))]);
    const error = await rejection(agent.run('x'));
    expect(error.code).toBe('agent_engine_failed');
    expect(error.partialResult.turns).toBe(1);
    expect(error.partialResult.toolResults).toHaveLength(1);
  });

  it('fails with agent_cancelled when cancelled', async () => {
    const controller = new AbortController();
    const { agent } = setup([
      () => {
        controller.abort();
        return CODE;
      },
    ]);
    const error = await rejection(agent.run('x', undefined, { signal: controller.signal }));
    expect(error).toMatchObject({ code: 'agent_cancelled', name: 'AbortError' });
  });
});
