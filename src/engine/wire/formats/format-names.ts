/**
 * The names `[engine] tool_call_format` accepts, in the order the formats are tried: a module of its own (no
 * parser code), so that reading the config does not load the format parsers (some 90 KB `jarvis tools list`
 * would parse for nothing). family-formats.ts keeps its table in this order (format-names.test.ts checks it).
 */
export const TOOL_CALL_FORMAT_NAMES: readonly string[] = [
  'qwen3-coder',
  'glm-4.5',
  'minimax',
  'seed-oss',
  'deepseek-v3.1',
  'deepseek-v3',
  'deepseek-v3.2',
  'kimi-k2',
  'lfm2',
  'llama4',
  'gpt-oss',
  'command-r7b',
  'nemotron',
  'jamba',
  'hunyuan-a13b',
  'apertus',
  'internlm2',
  'granite-20b-fc',
  'functionary-v3.2',
  'functionary-v3.1',
  'hermes',
  'qwen2.5-coder',
  'xlam',
  'gigachat3',
];
