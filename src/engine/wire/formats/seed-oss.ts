import { createFunctionTagFormat } from './qwen3-coder.js';
import type { ToolCallFormat } from './tool-call-format.js';
import { THINK_TAGS } from './xml-parameters.js';

/**
 * ByteDance Seed-OSS: `<seed:tool_call>\n<function=name>\n<parameter=p>value</parameter>\n</function>\n
 * </seed:tool_call>` (Qwen3-Coder's tags in its own wrapper), also without the wrapper; calls written while
 * thinking (`<seed:think>…</seed:think>`) are not calls.
 */
export const seedOssFormat: ToolCallFormat = createFunctionTagFormat({
  name: 'seed-oss',
  open: '<seed:tool_call>',
  close: '</seed:tool_call>',
  thinkTags: [['<seed:think>', '</seed:think>'], ...THINK_TAGS],
});
