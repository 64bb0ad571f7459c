import { describe, expect, it } from 'vitest';
import {
  createMessage,
  EngineError,
  type InferenceEngine,
  type Message,
  Role,
  type StreamChunk,
} from '../core/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  toolCallReply,
  UnconsumedRepliesError,
  UnexpectedEngineCallError,
} from './scripted-engine.js';

const ASK: readonly Message[] = [
  createMessage(Role.SYSTEM, 'You are helpful.'),
  createMessage(Role.USER, 'What is 2+2?'),
];
const OPTIONS = { model: 'qwen3:8b' };

async function collect(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('ScriptedEngine', () => {
  it('implements InferenceEngine and answers with its replies in order', async () => {
    const engine: InferenceEngine = new ScriptedEngine([
      toolCallReply({ id: 'call_a', name: 'calculator', arguments: { expression: '2+2' } }),
      assistantReply('2 + 2 = 4'),
    ]);
    expect(engine.engineId).toBe('scripted');
    expect(await engine.generate(ASK, OPTIONS)).toEqual({
      content: '',
      toolCalls: [{ id: 'call_a', name: 'calculator', arguments: '{"expression":"2+2"}' }],
      usage: { promptTokens: 7, completionTokens: 5, totalTokens: 12 },
      finishReason: 'tool_calls',
      model: 'qwen3:8b',
      ttftSeconds: 0,
    });
    expect(await engine.generate(ASK, OPTIONS)).toMatchObject({
      content: '2 + 2 = 4',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 },
    });
  });

  it('numbers calls without ids, keeps argument text as written, and takes plain strings as answers', async () => {
    const engine = new ScriptedEngine([
      toolCallReply(
        { name: 'calculator', arguments: '{"expression": "2+' },
        { name: 'think', arguments: {} },
      ),
      assistantReply('Let me check.', {
        toolCalls: [{ name: 'think', arguments: { thought: 'x' } }],
      }),
      'plain text',
    ]);
    const first = await engine.generate(ASK, OPTIONS);
    const second = await engine.generate(ASK, OPTIONS);
    expect(first.toolCalls).toEqual([
      { id: 'call_1', name: 'calculator', arguments: '{"expression": "2+' },
      { id: 'call_2', name: 'think', arguments: '{}' },
    ]);
    expect(second).toMatchObject({
      content: 'Let me check.',
      toolCalls: [{ id: 'call_3', name: 'think', arguments: '{"thought":"x"}' }],
      finishReason: 'tool_calls',
    });
    expect((await engine.generate(ASK, OPTIONS)).content).toBe('plain text');
    engine.assertAllStepsConsumed();
  });

  it('uses the usage, model, reasoning, finish reason and ttft a reply gives', async () => {
    const engine = new ScriptedEngine([
      assistantReply('Four.', {
        reasoning: 'Two and two.',
        usage: { promptTokens: 100 },
        model: 'qwen3:8b-q4',
        finishReason: 'length',
        ttftSeconds: 0.25,
      }),
    ]);
    expect(await engine.generate(ASK, OPTIONS)).toEqual({
      content: 'Four.',
      toolCalls: [],
      reasoning: 'Two and two.',
      usage: { promptTokens: 100, completionTokens: 5, totalTokens: 105 },
      finishReason: 'length',
      model: 'qwen3:8b-q4',
      ttftSeconds: 0.25,
    });
  });

  it('streams the same reply: reasoning and text word by word, tool calls, then the end', async () => {
    const engine = new ScriptedEngine([
      assistantReply('The answer is 4.', {
        reasoning: 'Simple sum.',
        toolCalls: [{ id: 'c1', name: 'think', arguments: { thought: 'done' } }],
      }),
    ]);
    expect(await collect(engine.stream(ASK, OPTIONS))).toEqual([
      { type: 'reasoning_delta', text: 'Simple ' },
      { type: 'reasoning_delta', text: 'sum.' },
      { type: 'text_delta', text: 'The ' },
      { type: 'text_delta', text: 'answer ' },
      { type: 'text_delta', text: 'is ' },
      { type: 'text_delta', text: '4.' },
      { type: 'tool_call', toolCall: { id: 'c1', name: 'think', arguments: '{"thought":"done"}' } },
      {
        type: 'end',
        finishReason: 'tool_calls',
        usage: { promptTokens: 7, completionTokens: 12, totalTokens: 19 },
        model: 'qwen3:8b',
        ttftSeconds: 0,
      },
    ]);
    expect(engine.calls.map((call) => call.method)).toEqual(['stream']);
  });

  it('computes function replies from the request', async () => {
    const engine = new ScriptedEngine([
      (call) => `You said: ${call.messages.at(-1)?.content ?? ''}`,
      async (call) => toolCallReply({ name: 'echo', arguments: { model: call.options.model } }),
    ]);
    expect((await engine.generate(ASK, OPTIONS)).content).toBe('You said: What is 2+2?');
    expect((await engine.generate(ASK, OPTIONS)).toolCalls[0]?.arguments).toBe(
      '{"model":"qwen3:8b"}',
    );
  });

  it('records copies of the messages, so later changes do not rewrite history', async () => {
    const engine = new ScriptedEngine(['ok']);
    const messages: Message[] = [createMessage(Role.USER, 'hi', { metadata: { n: 1 } })];
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'think', description: 'Think.', parameters: {} },
      },
    ];
    await engine.generate(messages, { model: 'm', temperature: 0.2, tools });
    messages.push(createMessage(Role.ASSISTANT, 'later'));
    (messages[0] as { content: string }).content = 'changed';
    expect(engine.calls).toEqual([
      {
        method: 'generate',
        messages: [{ role: 'user', content: 'hi', metadata: { n: 1 } }],
        options: { model: 'm', temperature: 0.2, tools },
      },
    ]);
  });

  it('raises scripted failures: an error as given, or an EngineError from a code', async () => {
    const boom = new Error('boom');
    const engine = new ScriptedEngine([
      errorReply(boom),
      errorReply('engine_unavailable'),
      errorReply(boom),
    ]);
    await expect(engine.generate(ASK, OPTIONS)).rejects.toBe(boom);
    const failure = await engine.generate(ASK, OPTIONS).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EngineError);
    expect(failure).toMatchObject({ code: 'engine_unavailable', engineId: 'scripted' });
    const stream = engine.stream(ASK, OPTIONS);
    await expect(collect(stream)).rejects.toBe(boom);
    engine.assertAllStepsConsumed();
  });

  it('fails a call beyond the script, and reports it later even when the caller swallowed it', async () => {
    const engine = new ScriptedEngine(['only one']);
    await engine.generate(ASK, OPTIONS);
    const error = await engine.generate(ASK, OPTIONS).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedEngineCallError);
    expect(error).toMatchObject({ code: 'scripted_engine_unexpected_call' });
    await expect(collect(engine.stream(ASK, OPTIONS))).rejects.toThrow(UnexpectedEngineCallError);
    expect(engine.calls).toHaveLength(3);
    expect(() => engine.assertAllStepsConsumed()).toThrow(
      'ScriptedEngine \'scripted\': 2 calls came after the script ended; first: generate() after user message "What is 2+2?"',
    );
  });

  it('reports leftover replies', async () => {
    const engine = new ScriptedEngine(['a', 'b', 'c'], { engineId: 'fake' });
    await engine.generate(ASK, OPTIONS);
    expect(engine.remainingReplies).toBe(2);
    expect(() => engine.assertAllStepsConsumed()).toThrow(UnconsumedRepliesError);
    expect(() => engine.assertAllStepsConsumed()).toThrow(
      "ScriptedEngine 'fake': 2 scripted reply(ies) were never used",
    );
    engine.enqueue('d');
    expect(engine.remainingReplies).toBe(3);
  });

  it('rejects a call whose signal is already aborted, without using a reply', async () => {
    const engine = new ScriptedEngine(['kept']);
    const controller = new AbortController();
    controller.abort(new Error('user pressed stop'));
    const error = await engine
      .generate(ASK, { model: 'm', signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'engine_cancelled', engineId: 'scripted' });
    await expect(
      collect(engine.stream(ASK, { model: 'm', signal: controller.signal })),
    ).rejects.toMatchObject({ code: 'engine_cancelled' });
    await expect(engine.listModels({ signal: controller.signal })).rejects.toMatchObject({
      code: 'engine_cancelled',
    });
    expect(engine.remainingReplies).toBe(1);
    expect((await engine.generate(ASK, OPTIONS)).content).toBe('kept');
  });

  it('stops a stream that is cancelled while it runs', async () => {
    const engine = new ScriptedEngine(['one two three four']);
    const controller = new AbortController();
    const received: StreamChunk[] = [];
    const run = async () => {
      for await (const chunk of engine.stream(ASK, { model: 'm', signal: controller.signal })) {
        received.push(chunk);
        if (received.length === 2) controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ code: 'engine_cancelled' });
    expect(received).toHaveLength(2);
  });

  it('lists its models, is healthy until closed, and closes twice without harm', async () => {
    const engine = new ScriptedEngine(['unused'], { engineId: 'fake', models: ['a', 'b'] });
    expect(await engine.listModels()).toEqual(['a', 'b']);
    expect(await new ScriptedEngine().listModels()).toEqual(['scripted']);
    expect(await engine.health()).toBe(true);
    await engine.close();
    await engine.close();
    expect(await engine.health()).toBe(false);
    await expect(engine.generate(ASK, OPTIONS)).rejects.toMatchObject({
      code: 'engine_unavailable',
      engineId: 'fake',
    });
    expect(engine.remainingReplies).toBe(1);
  });
});
