import { describe, expect, it } from 'vitest';
import type {
  GenerateOptions,
  GenerateResult,
  OpenAIFunctionTool,
  StreamChunk,
} from '../../core/index.js';
import { embeddedTextCalls } from './embedded-llama-text-calls.js';

const WEATHER: OpenAIFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather in a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
    },
  },
};
const OPTIONS: GenerateOptions = { model: 'coder', tools: [WEATHER] };
/** A piece of Qwen3-Coder's chat template: its tool calls are XML inside <tool_call>. */
const QWEN3_CODER_TEMPLATE =
  '{%- for tool_call in message.tool_calls %}<tool_call>\n<function={{ tool_call.name }}>\n' +
  '{%- for name, value in tool_call.arguments|items %}<parameter={{ name }}>\n{{ value }}\n</parameter>' +
  '{%- endfor %}</function>\n</tool_call>{%- endfor %}';
const CALL =
  '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n' +
  '<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>';

function answer(content: string, extra: Partial<GenerateResult> = {}): GenerateResult {
  return {
    content,
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    finishReason: 'stop',
    model: 'coder',
    ttftSeconds: 0.1,
    ...extra,
  };
}

let ids = 0;
function makeId(): string {
  ids += 1;
  return `call_${ids}`;
}

describe('tool calls an embedded model writes as text', () => {
  it("reads them in the syntax of the GGUF's chat template, arguments typed by the schema", () => {
    const reader = embeddedTextCalls(
      QWEN3_CODER_TEMPLATE,
      'coder',
      OPTIONS,
      false,
      makeId,
      undefined,
    );
    const result = reader?.finish(answer(`Let me look.\n${CALL}`));
    expect(result?.content).toBe('Let me look.');
    expect(result?.finishReason).toBe('tool_calls');
    expect(result?.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['get_weather', { city: 'Oslo', days: 3 }],
    ]);
  });

  it('streams the text before the call and never the call itself', () => {
    const seen: StreamChunk[] = [];
    const reader = embeddedTextCalls(QWEN3_CODER_TEMPLATE, 'coder', OPTIONS, false, makeId, (c) =>
      seen.push(c),
    );
    const text = `Let me look.\n${CALL}`;
    for (let at = 0; at < text.length; at += 7) {
      reader?.push({ type: 'text_delta', text: text.slice(at, at + 7) });
    }
    const result = reader?.finish(answer(text));
    const streamed = seen.map((c) => (c.type === 'text_delta' ? c.text : '')).join('');
    expect(streamed.trim()).toBe('Let me look.');
    expect(streamed).not.toContain('<');
    expect(result?.toolCalls).toHaveLength(1);
  });

  it('passes a plain answer through whole, streamed as it comes', () => {
    const seen: string[] = [];
    const reader = embeddedTextCalls(QWEN3_CODER_TEMPLATE, 'coder', OPTIONS, false, makeId, (c) =>
      seen.push(c.type === 'text_delta' ? c.text : ''),
    );
    reader?.push({ type: 'text_delta', text: 'It will be sunny ' });
    reader?.push({ type: 'text_delta', text: 'in Oslo.' });
    const result = reader?.finish(answer('It will be sunny in Oslo.'));
    expect(seen.join('')).toBe('It will be sunny in Oslo.');
    expect(result).toMatchObject({ content: 'It will be sunny in Oslo.', toolCalls: [] });
  });

  it('keeps the calls node-llama-cpp parsed, and does nothing for a forced call or no tools', () => {
    const reader = embeddedTextCalls(
      QWEN3_CODER_TEMPLATE,
      'coder',
      OPTIONS,
      false,
      makeId,
      undefined,
    );
    const native = answer('', {
      toolCalls: [{ id: 'n1', name: 'get_weather', arguments: '{}' }],
      finishReason: 'tool_calls',
    });
    expect(reader?.finish(native)).toEqual(native);
    expect(embeddedTextCalls(QWEN3_CODER_TEMPLATE, 'coder', OPTIONS, true, makeId, undefined)).toBe(
      undefined,
    );
    expect(
      embeddedTextCalls(
        QWEN3_CODER_TEMPLATE,
        'coder',
        { model: 'coder' },
        false,
        makeId,
        undefined,
      ),
    ).toBe(undefined);
  });
});
