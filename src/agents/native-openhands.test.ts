import { beforeAll, describe, expect, it } from 'vitest';
import { AgentError, EventBus, type Tool } from '../core/index.js';
import {
  errorReply,
  ScriptedEngine,
  type ScriptedEngineReply,
  ScriptedTool,
} from '../testing/index.js';
import { CalculatorTool, CodeInterpreterTool } from '../tools/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';
import { extractPythonBlock } from './code-blocks.js';
import {
  buildOpenHandsSystemPrompt,
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

describe('NativeOpenHandsAgent: <tool_call> blocks', () => {
  const XML = '<tool_call>calculator\n$expression=7*6</calculator>';
  const JSON_FORM =
    '<tool_call>{"name": "calculator", "arguments": {"expression": "7*6"}}</tool_call>';

  function noteTool(steps: readonly string[] = ['saved']) {
    return new ScriptedTool({
      name: 'write_note',
      parameters: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          body: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['title'],
      },
      steps,
    });
  }

  it.each([
    ['the XML form (upstream test_xml_tool_call_extraction)', XML],
    ['the JSON form', JSON_FORM],
  ])('runs %s through the executor and feeds the result back', async (_name, reply) => {
    const { engine, agent, bus } = setup([reply, 'The answer is 42.'], {
      tools: [new CalculatorTool()],
    });
    const result = await agent.run('What is 7 times 6?');
    expect(result.content).toBe('The answer is 42.');
    expect(result.turns).toBe(2);
    expect(result.toolResults).toHaveLength(1);
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'calculator',
      content: '42',
      success: true,
    });
    expect(engine.calls[1]?.messages.at(-2)).toEqual({ role: 'assistant', content: reply });
    expect(lastSent(engine, 1)).toBe('Result: 42');
    const started = bus.history.find((event) => event.type === 'tool_call_start');
    expect(started?.data).toMatchObject({ toolName: 'calculator', callId: 'tool_1' });
    engine.assertAllStepsConsumed();
  });

  it('passes several $param lines and multi-line values to the tool', async () => {
    const tool = noteTool();
    const reply = [
      'I will save it.',
      '<tool_call>write_note',
      '$title=Shopping',
      '$body=eggs',
      'milk ($3)',
      '$tags=["food"]',
      '</tool_call>',
    ].join('\n');
    const { agent } = setup([reply, 'Saved your note.'], { tools: [tool] });
    const result = await agent.run('Save my list');
    expect(result.content).toBe('Saved your note.');
    expect(tool.calls).toEqual([{ title: 'Shopping', body: 'eggs\nmilk ($3)', tags: ['food'] }]);
    tool.assertAllStepsConsumed();
  });

  it('runs several blocks of one reply in order and reports each result', async () => {
    const reply = `${XML}\n<tool_call>{"name": "calculator", "arguments": {"expression": "2**10"}}</tool_call>`;
    const { engine, agent, bus } = setup([reply, '42 and 1024.'], {
      tools: [new CalculatorTool()],
    });
    const result = await agent.run('Two sums');
    expect(result.content).toBe('42 and 1024.');
    expect(result.toolResults.map((r) => r.content)).toEqual(['42', '1024']);
    expect(lastSent(engine, 1)).toBe('Result 1 (calculator): 42\n\nResult 2 (calculator): 1024');
    const ids = bus.history
      .filter((event) => event.type === 'tool_call_start')
      .map((event) => (event.data as { callId?: string }).callId);
    expect(ids).toEqual(['tool_1_1', 'tool_1_2']);
  });

  it.each([
    [
      'an unknown tool',
      '<tool_call>calculater\n$expression=7*6</tool_call>',
      'unknown_tool',
      'Unknown tool: calculater',
    ],
    [
      'bad JSON',
      '<tool_call>{"name": "calculator", "arguments": {expression: 7*6}}</tool_call>',
      'invalid_arguments',
      'not valid JSON',
    ],
    [
      'an unclosed tag',
      '<tool_call>calculator\n$expression=7*6',
      'invalid_arguments',
      'not closed',
    ],
  ])(
    'turns %s into a failed result the model reads and repairs',
    async (_name, bad, code, says) => {
      const { engine, agent } = setup([bad, XML, 'The answer is 42.'], {
        tools: [new CalculatorTool()],
      });
      const result = await agent.run('What is 7 times 6?');
      expect(result.content).toBe('The answer is 42.');
      expect(result.toolResults[0]).toMatchObject({ success: false, errorCode: code });
      expect(lastSent(engine, 1)).toMatch(/^Result: /);
      expect(lastSent(engine, 1)).toContain(says);
      expect(result.toolResults[1]).toMatchObject({ toolName: 'calculator', content: '42' });
      engine.assertAllStepsConsumed();
    },
  );

  it('never returns raw markup as the answer, even at the turn limit', async () => {
    const prose = setup(['Let me check.\n<tool_call>calculator\n$expression=7*6</tool_call>'], {
      tools: [new CalculatorTool()],
      maxTurns: 1,
    });
    const stopped = await prose.agent.run('x');
    expect(stopped.content).toBe('Let me check.');
    expect(stopped.metadata).toMatchObject({ max_turns_exceeded: true });
    const bare = setup([XML], { tools: [new CalculatorTool()], maxTurns: 1 });
    expect((await bare.agent.run('x')).content).toBe(MAX_TURNS_MESSAGE);
    const stray = setup(['The answer is 42.</tool_call>'], { tools: [new CalculatorTool()] });
    expect((await stray.agent.run('x')).content).toBe('The answer is 42.');
  });

  it('counts a block inside a code fence in prose (as upstream), but not one inside <think>', async () => {
    const fenced = 'Calling it:\n```xml\n<tool_call>calculator\n$expression=7*6</tool_call>\n```';
    const one = setup([fenced, 'It is 42.'], { tools: [new CalculatorTool()] });
    const ran = await one.agent.run('x');
    expect(ran.toolResults[0]).toMatchObject({ toolName: 'calculator', content: '42' });
    const thinking = `<think>maybe ${XML}</think>It is 42.`;
    const two = setup([thinking], { tools: [new CalculatorTool()] });
    const answered = await two.agent.run('x');
    expect(answered).toMatchObject({ content: 'It is 42.', toolResults: [] });
  });

  it('lets a ```python block win over markup inside it, as upstream', async () => {
    const reply = '```python\nprint("<tool_call>calculator\\n$expression=1</tool_call>")\n```';
    const { agent } = setup([reply, 'ok'], { tools: [new CalculatorTool()] });
    const result = await agent.run('x');
    expect(result.toolResults).toHaveLength(1);
    expect(result.toolResults[0]).toMatchObject({ toolName: 'code_interpreter', success: false });
  });

  it('runs at most 8 blocks of a reply and tells the model about the rest', async () => {
    const block = '<tool_call>calculator\n$expression=1+1</tool_call>';
    const { engine, agent } = setup([block.repeat(10), 'done'], { tools: [new CalculatorTool()] });
    const result = await agent.run('x');
    expect(result.toolResults).toHaveLength(9);
    expect(result.toolResults.slice(0, 8).every((r) => r.content === '2')).toBe(true);
    expect(result.toolResults[8]).toMatchObject({ success: false, errorCode: 'too_many_calls' });
    expect(lastSent(engine, 1)).toContain('2 more were not run');
  });

  it('answers a huge hostile reply without hanging', async () => {
    const hostile = `<tool_call>calculator\n${'<a>$x='.repeat(60_000)}`;
    const { engine, agent } = setup([`${'<tool_call>'.repeat(30_000)}${hostile}`, 'done'], {
      tools: [new CalculatorTool()],
    });
    const result = await agent.run('x');
    expect(result.content).toBe('done');
    expect(result.toolResults).toHaveLength(9);
    expect(lastSent(engine, 1)).toContain('not closed');
  });
});
