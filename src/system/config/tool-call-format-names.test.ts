import { describe, expect, it } from 'vitest';
import { TOOL_CALL_FORMAT_NAMES as ENGINE_NAMES } from '../../engine/index.js';
import { TOOL_CALL_FORMAT_NAMES } from './tool-call-format-names.js';

describe('the tool call format names the config accepts', () => {
  it('are the engine formats, in the same order (add a new format to tool-call-format-names.ts too)', () => {
    expect(TOOL_CALL_FORMAT_NAMES).toEqual(ENGINE_NAMES);
  });
});
