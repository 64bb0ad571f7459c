import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter.js';
import { OpenClawProtocolError } from './protocol.js';

describe('LineSplitter', () => {
  it('joins lines split across chunks and cuts several lines from one chunk', () => {
    const splitter = new LineSplitter(100);
    expect(splitter.push(Buffer.from('{"a":'))).toEqual([]);
    expect(splitter.push(Buffer.from('1}\r\n{"b":2}\n{"c"'))).toEqual(['{"a":1}', '{"b":2}']);
    expect(splitter.push(Buffer.from(':3}\n'))).toEqual(['{"c":3}']);
  });

  it('decodes a multi-byte character split between chunks', () => {
    const bytes = Buffer.from('é\n');
    const splitter = new LineSplitter(100);
    expect(splitter.push(bytes.subarray(0, 1))).toEqual([]);
    expect(splitter.push(bytes.subarray(1))).toEqual(['é']);
  });

  it('refuses a line over the limit, even before its newline arrives, then recovers', () => {
    const splitter = new LineSplitter(8);
    expect(splitter.push(Buffer.from('12345678\n'))).toEqual(['12345678']);
    expect(() => splitter.push(Buffer.from('123456789'))).toThrow(OpenClawProtocolError);
    expect(() => splitter.push(Buffer.from('12345\n6789'))).not.toThrow();
    expect(() => new LineSplitter(4).push(Buffer.from('12345\n'))).toThrow(
      /longer than the 4-byte limit/,
    );
  });
});
