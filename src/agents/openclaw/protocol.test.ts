import { describe, expect, it } from 'vitest';
import {
  checkReplyCorrelation,
  createOpenClawMessage,
  OpenClawProtocolError,
  parseMessage,
  serializeMessage,
} from './protocol.js';

const fixedId = { generateId: () => 'generated-id' };

describe('serializeMessage', () => {
  it('writes one line with snake_case keys, leaving out absent fields and empty metadata', () => {
    const call = createOpenClawMessage({
      type: 'tool_call',
      id: 'c1',
      toolName: 'calculator',
      toolArgs: { expression: '2+2' },
    });
    expect(serializeMessage(call)).toBe(
      '{"type":"tool_call","id":"c1","content":"","tool_name":"calculator","tool_args":{"expression":"2+2"}}',
    );
    const result = createOpenClawMessage({
      type: 'tool_result',
      id: 'r1',
      toolName: 'calculator',
      toolResult: '4\nlines',
      error: 'none',
      metadata: { tool_call_id: 'c1' },
    });
    const line = serializeMessage(result);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      type: 'tool_result',
      id: 'r1',
      content: '',
      tool_name: 'calculator',
      tool_result: '4\nlines',
      error: 'none',
      metadata: { tool_call_id: 'c1' },
    });
  });

  it('round-trips through parseMessage', () => {
    const query = createOpenClawMessage({
      type: 'query',
      id: 'q1',
      content: 'hi',
      metadata: { model: '', conversation: [{ role: 'user', content: 'earlier' }] },
    });
    expect(parseMessage(serializeMessage(query))).toEqual(query);
  });

  it('gives fresh ids from the injected generator, and crypto.randomUUID by default', () => {
    expect(createOpenClawMessage({ type: 'health' }, fixedId).id).toBe('generated-id');
    expect(createOpenClawMessage({ type: 'health' }).id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});

describe('parseMessage', () => {
  it('fills defaults for a missing id, content and metadata, and ignores unknown keys', () => {
    expect(parseMessage('{"type":"response","extra":1}', fixedId)).toEqual({
      type: 'response',
      id: 'generated-id',
      content: '',
      metadata: {},
    });
    expect(parseMessage('{"type":"health_ok","id":"","tool_name":null}', fixedId)).toEqual({
      type: 'health_ok',
      id: 'generated-id',
      content: '',
      metadata: {},
    });
  });

  it('reads every field of a tool call, tolerating surrounding whitespace', () => {
    const message = parseMessage(
      ' {"type":"tool_call","id":"c1","content":"","tool_name":"calculator","tool_args":{"expression":"1"},"metadata":{"reply_to":"q1"}} ',
    );
    expect(message).toEqual({
      type: 'tool_call',
      id: 'c1',
      content: '',
      toolName: 'calculator',
      toolArgs: { expression: '1' },
      metadata: { reply_to: 'q1' },
    });
  });

  it.each([
    ['not json', /not valid JSON .*expected one JSON object per line, got "not json"/],
    ['', /not valid JSON/],
    ['[1,2]', /expected a JSON object, got array/],
    ['"text"', /expected a JSON object, got string/],
    ['null', /expected a JSON object, got null/],
    ['{}', /unknown message type \(no "type" field\); accepted types: query, response, tool_call/],
    ['{"type":"bogus"}', /unknown message type \(type "bogus"\); accepted types: .*health_ok/],
    ['{"type":7}', /unknown message type \(a "type" of JSON type integer\)/],
    ['{"type":"response","id":5}', /"id" must be a string or null, got integer/],
    ['{"type":"response","content":["a"]}', /"content" must be a string or null, got array/],
    [
      '{"type":"tool_call","tool_name":"c","tool_args":[1]}',
      /"tool_args" must be a JSON object or null, got array/,
    ],
    [
      '{"type":"tool_call","tool_name":"c","tool_args":"{}"}',
      /"tool_args" must be a JSON object or null, got string/,
    ],
    [
      '{"type":"tool_result","tool_result":4}',
      /"tool_result" must be a string or null, got integer/,
    ],
    ['{"type":"error","error":{"m":1}}', /"error" must be a string or null, got object/],
    ['{"type":"response","metadata":"x"}', /"metadata" must be a JSON object or null, got string/],
    ['{"type":"tool_call","tool_args":{}}', /a "tool_call" needs a non-empty string "tool_name"/],
    ['{"type":"tool_call","tool_name":""}', /a "tool_call" needs a non-empty string "tool_name"/],
  ])('rejects %s with a clear OpenClawProtocolError', (line, pattern) => {
    let caught: unknown;
    try {
      parseMessage(line);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OpenClawProtocolError);
    expect((caught as OpenClawProtocolError).code).toBe('openclaw_protocol_error');
    expect((caught as Error).message).toMatch(/^Invalid OpenClaw message: /);
    expect((caught as Error).message).toMatch(pattern);
  });

  it('shortens a long bad line in the message', () => {
    expect(() => parseMessage(`x${'y'.repeat(1000)}`)).toThrow(/… \(1001 characters\)/);
  });
});

describe('checkReplyCorrelation', () => {
  const request = createOpenClawMessage({ type: 'query', id: 'q1' });

  it('accepts replies without reply_to (order correlation) and with the right one', () => {
    expect(() => checkReplyCorrelation(request, parseMessage('{"type":"response"}'))).not.toThrow();
    const reply = parseMessage('{"type":"response","metadata":{"reply_to":"q1"}}');
    expect(() => checkReplyCorrelation(request, reply)).not.toThrow();
  });

  it('rejects a reply to another message', () => {
    const reply = parseMessage('{"type":"response","metadata":{"reply_to":"q0"}}');
    expect(() => checkReplyCorrelation(request, reply)).toThrow(
      'OpenClaw reply answers message "q0", but the message in flight is "q1"',
    );
  });
});
