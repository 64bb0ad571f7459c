import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { isPaired, MISSING_RESULT_TEXT, pairToolCalls } from './tool-pairing.js';

const call = (id: string) => ({ id, name: 'calc', arguments: '{}' });
const asks = (...ids: string[]): Message => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map(call),
});
const result = (id: string, content = `r${id}`): Message => ({
  role: 'tool',
  content,
  toolCallId: id,
});

describe('pairToolCalls', () => {
  it('leaves a paired history as it is', () => {
    const messages: Message[] = [
      { role: 'user', content: 'q' },
      asks('1', '2'),
      result('2'),
      result('1'),
      { role: 'assistant', content: 'done' },
    ];
    expect(pairToolCalls(messages)).toEqual(messages);
    expect(isPaired(messages)).toBe(true);
  });

  it('gives a call without a result one saying so, right after its group', () => {
    const paired = pairToolCalls([asks('1', '2'), result('1'), { role: 'user', content: 'next' }]);
    expect(paired.map((m) => [m.role, m.toolCallId, m.content])).toEqual([
      ['assistant', undefined, ''],
      ['tool', '1', 'r1'],
      ['tool', '2', MISSING_RESULT_TEXT],
      ['user', undefined, 'next'],
    ]);
    expect(paired[2]?.name).toBe('calc');
  });

  it('drops results that answer no call of the message before, and second results', () => {
    const paired = pairToolCalls([
      result('0'),
      asks('1'),
      result('1'),
      result('1', 'again'),
      result('9'),
      { role: 'assistant', content: 'x' },
      result('1'),
    ]);
    expect(paired.map((m) => m.content)).toEqual(['', 'r1', 'x']);
  });

  it('always returns a paired history, for any sequence of messages', () => {
    const message = fc.oneof(
      fc.constant<Message>({ role: 'user', content: 'u' }),
      fc.constant<Message>({ role: 'assistant', content: 'a' }),
      fc
        .array(fc.constantFrom('1', '2', '3'), { minLength: 1, maxLength: 3 })
        .map((ids) => asks(...new Set(ids))),
      fc.constantFrom('1', '2', '3', '4').map((id) => result(id)),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), (messages) => {
        const paired = pairToolCalls(messages);
        expect(isPaired(paired)).toBe(true);
        const kept = messages.filter((m) => m.role !== 'tool');
        expect(paired.filter((m) => m.role !== 'tool')).toEqual(kept);
      }),
    );
  });
});
