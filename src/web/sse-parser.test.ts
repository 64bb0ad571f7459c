import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser.js';

describe('SseParser', () => {
  it('reads named events with their data, however the stream is split', () => {
    const stream =
      'event: run_start\ndata: {"a":1}\n\nevent: text_delta\r\ndata: {"text":"hi"}\r\n\r\n';
    for (const size of [1, 2, 3, 7, stream.length]) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < stream.length; i += size)
        events.push(...parser.push(stream.slice(i, i + size)));
      events.push(...parser.end());
      expect(events, `pieces of ${size}`).toEqual([
        { event: 'run_start', data: '{"a":1}' },
        { event: 'text_delta', data: '{"text":"hi"}' },
      ]);
    }
  });

  it('joins data lines, skips comments and unknown fields, and names unnamed events message', () => {
    const parser = new SseParser();
    const events = parser.push(': keep-alive\nid: 7\ndata: one\ndata:two\n\n\n');
    expect(events).toEqual([{ event: 'message', data: 'one\ntwo' }]);
  });

  it('hands over a last event without its blank line when the stream ends, and nothing for no data', () => {
    const parser = new SseParser();
    expect(parser.push('event: result\ndata: {"x":1}')).toEqual([]);
    expect(parser.end()).toEqual([{ event: 'result', data: '{"x":1}' }]);
    expect(new SseParser().end()).toEqual([]);
    const named = new SseParser();
    expect(named.push('event: lonely\n\n')).toEqual([]);
  });
});
