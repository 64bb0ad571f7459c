/** The built-in engine keys. */
export const ENGINE_KEYS = [
  'ollama',
  'vllm',
  'llamacpp',
  'sglang',
  'lmstudio',
  'openai',
  'embedded',
] as const;

/** One of the built-in engine keys. */
export type EngineKey = (typeof ENGINE_KEYS)[number];
