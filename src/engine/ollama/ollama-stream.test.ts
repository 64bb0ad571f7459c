import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamChunk } from '../../core/index.js';
import { WireFormatError } from '../wire/wire-format.js';
import {
  MAX_NDJSON_LINE_CHARS,
  NdjsonLineSplitter,
  OllamaStreamAssembler,
} from './ollama-stream.js';

function splitAll(pieces: readonly string[]): string[] {
  const splitter = new NdjsonLineSplitter();
  return [...pieces.flatMap((piece) => splitter.push(piece)), ...splitter.flush()];
}

describe('NdjsonLineSplitter', () => {
  it('joins lines cut across pieces and splits pieces holding several lines', () => {
    expect(splitAll(['{"a":', '1}\n{"b"', ':2}\n{"c":3}\n'])).toEqual([
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
    ]);
    expect(splitAll(['{"a":1}\r\n\r\n  \n{"b":2}'])).toEqual(['{"a":1}', '{"b":2}']);
    expect(splitAll([])).toEqual([]);
  });

  it('gives the same lines however the text is cut', () => {
    const line = fc.string({ maxLength: 20 }).map((text) => text.replace(/[\r\n]/g, ''));
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.array(fc.nat(200), { maxLength: 6 }),
        (lines, cuts) => {
          const text = lines.map((entry) => `${entry}\n`).join('');
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort(
            (left, right) => left - right,
          );
          const bounds = [0, ...points, text.length];
          const pieces = bounds
            .slice(0, -1)
            .map((start, index) => text.slice(start, bounds[index + 1]));
          expect(splitAll(pieces)).toEqual(lines.filter((entry) => entry.trim() !== ''));
        },
      ),
    );
  });

  it('refuses a line that never ends', () => {
    const splitter = new NdjsonLineSplitter();
    const piece = 'x'.repeat(1024 * 1024);
    expect(() => {
      for (let sent = 0; sent <= MAX_NDJSON_LINE_CHARS; sent += piece.length) splitter.push(piece);
    }).toThrow(WireFormatError);
  });
});

function line(message: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    model: 'qwen3:8b',
    created_at: '2025-06-01T10:00:00Z',
    message: { role: 'assistant', content: '', ...message },
    done: false,
    ...extra,
  });
}

function feed(assembler: OllamaStreamAssembler, lines: readonly string[]): StreamChunk[] {
  return [...lines.flatMap((entry) => assembler.push(entry)), ...assembler.finish()];
}

describe('OllamaStreamAssembler', () => {
  it('turns thinking, content and tool calls into chunks, and reads the done line', () => {
    const assembler = new OllamaStreamAssembler('requested', (index) => `gen_${index}`);
    const chunks = feed(assembler, [
      line({ thinking: 'Need ' }),
      line({ thinking: 'math.' }),
      line({ content: 'Calling ' }),
      line({ content: 'now.' }),
      line({
        tool_calls: [{ function: { name: 'calculator', arguments: { expression: '2+2' } } }],
      }),
      line(
        {},
        { done: true, done_reason: 'stop', prompt_eval_count: 20, eval_count: 12, model: 'qwen3' },
      ),
    ]);
    expect(chunks).toEqual([
      { type: 'reasoning_delta', text: 'Need ' },
      { type: 'reasoning_delta', text: 'math.' },
      { type: 'text_delta', text: 'Calling ' },
      { type: 'text_delta', text: 'now.' },
      {
        type: 'tool_call',
        toolCall: { id: 'gen_0', name: 'calculator', arguments: '{"expression":"2+2"}' },
      },
    ]);
    expect(assembler).toMatchObject({
      done: true,
      finishReason: 'tool_calls',
      model: 'qwen3',
      usage: { promptTokens: 20, completionTokens: 12, totalTokens: 32 },
    });
  });

  it('splits <think> tags cut across lines', () => {
    const assembler = new OllamaStreamAssembler('m', (index) => `gen_${index}`);
    const pieces = ['<thi', 'nk>pon', 'der</th', 'ink>\n\nDone', '.'];
    const chunks = feed(assembler, [
      ...pieces.map((content) => line({ content })),
      line({}, { done: true }),
    ]);
    const text = (type: string) =>
      chunks.map((chunk) => (chunk.type === type && 'text' in chunk ? chunk.text : '')).join('');
    expect(text('reasoning_delta')).toBe('ponder');
    expect(text('text_delta')).toBe('Done.');
    expect(assembler.finishReason).toBe('stop');
  });

  it('keeps ids sent with calls, de-duplicates them, and passes done_reason through', () => {
    const assembler = new OllamaStreamAssembler('m', (index) => `gen_${index}`);
    const calls = [
      { id: 'call_x', function: { name: 'a', arguments: {} } },
      { id: 'call_x', function: { name: 'b', arguments: '{"k":1}' } },
    ];
    const chunks = feed(assembler, [line({ tool_calls: calls })]);
    expect(chunks).toEqual([
      { type: 'tool_call', toolCall: { id: 'call_x', name: 'a', arguments: '{}' } },
      { type: 'tool_call', toolCall: { id: 'gen_1', name: 'b', arguments: '{"k":1}' } },
    ]);
    expect(assembler.done).toBe(false);
    const length = new OllamaStreamAssembler('m', (index) => `gen_${index}`);
    length.push(line({ content: 'x' }, { done: true, done_reason: 'length' }));
    expect(length.finishReason).toBe('length');
  });

  it('throws on a line that is not a JSON object, and on an error line', () => {
    const assembler = new OllamaStreamAssembler('m', (index) => `gen_${index}`);
    expect(() => assembler.push('{"message": {"con')).toThrow(/not valid JSON/);
    expect(() => assembler.push('[1]')).toThrow(/not a JSON object/);
    let error: unknown;
    try {
      assembler.push(JSON.stringify({ error: 'model runner has unexpectedly stopped' }));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WireFormatError);
    expect(error).toMatchObject({ code: 'engine_model_error' });
    expect((error as Error).message).toContain('model runner has unexpectedly stopped');
  });
});
