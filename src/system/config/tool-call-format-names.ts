/**
 * The names `[engine] tool_call_format` accepts: the engine's `TOOL_CALL_FORMAT_NAMES`, in its order. Listed
 * here so that reading the config loads none of the format parsers behind that list (some 90 KB that `jarvis
 * tools list` would parse for nothing); tool-call-format-names.test.ts checks the two lists stay the same.
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
