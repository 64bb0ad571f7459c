import { describe, expect, it } from 'vitest';
import { TOOL_CALL_FORMATS } from './family-formats.js';
import { TOOL_CALL_FORMAT_NAMES } from './format-names.js';

describe('the tool call format names', () => {
  it('are the formats of the family table, in the same order (add a new format to format-names.ts too)', () => {
    expect(TOOL_CALL_FORMATS.map((format) => format.name)).toEqual(TOOL_CALL_FORMAT_NAMES);
  });
});
