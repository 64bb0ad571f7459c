import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/index.js';
import { toChatHistory } from './embedded-llama-messages.js';

const call = (id: string, name: string, args: string) => ({ id, name, arguments: args });

describe('toChatHistory', () => {
  it('maps system, user and plain assistant messages one to one', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Bye' },
    ];
    expect(toChatHistory(messages)).toEqual([
      { type: 'system', text: 'Be brief.' },
      { type: 'user', text: 'Hi' },
      { type: 'model', response: ['Hello!'] },
      { type: 'user', text: 'Bye' },
    ]);
  });

  it('pairs tool results with their calls by id and continues the model response after them', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [
          call('a', 'get_weather', '{"city":"Paris"}'),
          call('b', 'get_weather', '{"city":"Rome"}'),
        ],
      },
      { role: 'tool', content: 'sunny', toolCallId: 'b' },
      { role: 'tool', content: '{"celsius":21}', toolCallId: 'a' },
      { role: 'assistant', content: 'Paris 21 C, Rome sunny.' },
    ];
    expect(toChatHistory(messages)).toEqual([
      { type: 'user', text: 'Weather in Paris and Rome?' },
      {
        type: 'model',
        response: [
          'Checking.',
          {
            type: 'functionCall',
            name: 'get_weather',
            params: { city: 'Paris' },
            result: { celsius: 21 },
          },
          { type: 'functionCall', name: 'get_weather', params: { city: 'Rome' }, result: 'sunny' },
          'Paris 21 C, Rome sunny.',
        ],
      },
    ]);
  });

  it('answers the oldest open call when a tool message has no id', () => {
    const history = toChatHistory([
      {
        role: 'assistant',
        content: '',
        toolCalls: [call('a', 'think', '{}'), call('b', 'think', '{}')],
      },
      { role: 'tool', content: 'first' },
      { role: 'tool', content: 'second' },
    ]);
    expect(history).toEqual([
      {
        type: 'model',
        response: [
          { type: 'functionCall', name: 'think', params: {}, result: 'first' },
          { type: 'functionCall', name: 'think', params: {}, result: 'second' },
        ],
      },
    ]);
  });

  it('turns a tool result that answers no call into a user message', () => {
    expect(
      toChatHistory([
        { role: 'user', content: 'Go' },
        { role: 'tool', content: '42', toolCallId: 'ghost', name: 'calculator' },
      ]),
    ).toEqual([
      { type: 'user', text: 'Go' },
      { type: 'user', text: 'Result of tool calculator:\n42' },
    ]);
  });

  it('keeps unparsable arguments as text and leaves unanswered calls with a null result', () => {
    const history = toChatHistory([
      { role: 'assistant', content: '', toolCalls: [call('a', 'calculator', '{"expression": 2+')] },
    ]);
    expect(history).toEqual([
      {
        type: 'model',
        response: [
          { type: 'functionCall', name: 'calculator', params: '{"expression": 2+', result: null },
        ],
      },
    ]);
  });

  it('does not change its input', () => {
    const messages: Message[] = [
      { role: 'assistant', content: 'x', toolCalls: [call('a', 't', '{}')] },
      { role: 'tool', content: 'done', toolCallId: 'a' },
    ];
    const copy = structuredClone(messages);
    toChatHistory(messages);
    expect(messages).toEqual(copy);
  });
});
