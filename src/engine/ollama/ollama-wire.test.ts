import { describe, expect, it } from 'vitest';
import type { GenerateOptions, Message, OpenAIFunctionTool } from '../../core/index.js';
import { WireFormatError } from '../wire/wire-format.js';
import {
  buildOllamaChatBody,
  parseOllamaChat,
  parseOllamaTags,
  toOllamaMessages,
  toolArgumentsObject,
} from './ollama-wire.js';

const ids = (index: number) => `id_${index}`;
const tool = (name: string): OpenAIFunctionTool => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object' } },
});

function wireError(run: () => unknown): WireFormatError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WireFormatError);
    return error as WireFormatError;
  }
  throw new Error('expected a WireFormatError');
}

describe('toOllamaMessages', () => {
  it('keeps roles and content, drops names Ollama does not know', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi', name: 'ada' },
    ];
    expect(toOllamaMessages(messages)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('sends assistant arguments as objects and names each tool result', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: 'Let me check.',
        toolCalls: [
          { id: 'a', name: 'calculator', arguments: '{"expression":"2+2","nested":{"x":[1]}}' },
          { id: 'b', name: 'think', arguments: '' },
        ],
      },
      { role: 'tool', content: '4', toolCallId: 'a' },
      { role: 'tool', content: 'ok', toolCallId: 'b', name: 'think_renamed' },
      { role: 'tool', content: '?', toolCallId: 'unknown' },
    ];
    expect(toOllamaMessages(messages)).toEqual([
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          {
            function: { name: 'calculator', arguments: { expression: '2+2', nested: { x: [1] } } },
          },
          { function: { name: 'think', arguments: {} } },
        ],
      },
      { role: 'tool', content: '4', tool_name: 'calculator' },
      { role: 'tool', content: 'ok', tool_name: 'think_renamed' },
      { role: 'tool', content: '?' },
    ]);
  });
});

describe('toolArgumentsObject', () => {
  it('parses object text and turns anything else into {} (Ollama takes only objects)', () => {
    expect(toolArgumentsObject('{"a":1,"b":"x"}')).toEqual({ a: 1, b: 'x' });
    for (const text of ['', '[1,2]', '"text"', '42', 'null', '{"a":', 'not json']) {
      expect(toolArgumentsObject(text), text).toEqual({});
    }
  });
});

describe('buildOllamaChatBody', () => {
  const question: Message[] = [{ role: 'user', content: 'Hi' }];

  it('puts sampling and size into options and omits what is not set', () => {
    const options: GenerateOptions = { model: 'qwen3:8b', temperature: 0, maxTokens: 50 };
    expect(buildOllamaChatBody(question, options, { stream: true, contextTokens: 8192 })).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      options: { num_ctx: 8192, temperature: 0, num_predict: 50 },
    });
  });

  it('adds tools and think when given', () => {
    const body = buildOllamaChatBody(
      question,
      { model: 'm', tools: [tool('calculator')] },
      { stream: false, contextTokens: 4096, think: false },
    );
    expect(body).toMatchObject({ tools: [tool('calculator')], think: false });
  });
});

describe('parseOllamaChat', () => {
  it('reads a real Ollama tool-call answer (object arguments, no ids)', () => {
    const body = {
      model: 'qwen2.5:7b',
      created_at: '2025-06-01T10:00:00.000Z',
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          { function: { name: 'get_weather', arguments: { city: 'Toronto', unit: 'celsius' } } },
          { function: { index: 1, name: 'calculator', arguments: '{"expression":"2+2"}' } },
          { function: { name: 'think' } },
          { function: { arguments: {} } },
          'junk',
        ],
      },
      done_reason: 'stop',
      done: true,
      total_duration: 2_412_123_456,
      prompt_eval_count: 212,
      eval_count: 31,
    };
    expect(parseOllamaChat(body, 'requested', ids)).toEqual({
      content: '',
      reasoning: '',
      toolCalls: [
        { id: 'id_0', name: 'get_weather', arguments: '{"city":"Toronto","unit":"celsius"}' },
        { id: 'id_1', name: 'calculator', arguments: '{"expression":"2+2"}' },
        { id: 'id_2', name: 'think', arguments: '{}' },
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 212, completionTokens: 31, totalTokens: 243 },
      model: 'qwen2.5:7b',
    });
  });

  it('splits the thinking field and <think> blocks off the content', () => {
    const body = {
      message: { role: 'assistant', content: '<think>inner</think>\n\nAnswer.', thinking: 'outer' },
      done: true,
    };
    expect(parseOllamaChat(body, 'm', ids)).toMatchObject({
      content: 'Answer.',
      reasoning: 'outer\n\ninner',
      finishReason: 'stop',
      model: 'm',
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    });
    const qwen = { message: { content: 'Reasoning first.\n</think>\n\nFour.' }, done: true };
    expect(parseOllamaChat(qwen, 'm', ids)).toMatchObject({
      content: 'Four.',
      reasoning: 'Reasoning first.',
    });
  });

  it('rejects bodies that are not chat answers, and reports server errors', () => {
    expect(wireError(() => parseOllamaChat([], 'm', ids)).code).toBe('engine_protocol_error');
    const noMessage = wireError(() => parseOllamaChat({ done: true }, 'm', ids));
    expect(noMessage.message).toContain('"message"');
    const reported = wireError(() => parseOllamaChat({ error: 'out of memory' }, 'm', ids));
    expect(reported).toMatchObject({ code: 'engine_model_error' });
    expect(reported.message).toContain('out of memory');
    const nested = wireError(() => parseOllamaChat({ error: { message: 'bad' } }, 'm', ids));
    expect(nested.message).toContain('bad');
  });
});

describe('parseOllamaTags', () => {
  it('returns the model names and skips malformed entries', () => {
    const body = {
      models: [{ name: 'qwen3:8b', size: 1 }, { model: 'llama3.2:3b' }, { name: 5 }, null],
    };
    expect(parseOllamaTags(body)).toEqual(['qwen3:8b', 'llama3.2:3b']);
    expect(parseOllamaTags({ models: [] })).toEqual([]);
    expect(wireError(() => parseOllamaTags({ data: [] })).message).toContain('/api/tags');
  });
});
