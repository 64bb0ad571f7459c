import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { EventBus } from '../src/core/index.js';
import { describeEngineContract } from '../src/engine/engine-contract.case.test.js';
import type { EngineBehaviour } from '../src/engine/engine-test-support.case.test.js';
import { EmbeddedLlamaEngine, OllamaEngine, OpenAICompatibleEngine } from '../src/engine/index.js';
import { InstrumentedEngine } from '../src/telemetry/index.js';
import { assistantReply, ScriptedEngine, writeTinyGguf } from '../src/testing/index.js';

// The engine contract, run against every InferenceEngine the project ships.

describeEngineContract({
  name: 'OpenAICompatibleEngine',
  makeEngine: ({ baseUrl }) =>
    new OpenAICompatibleEngine({
      baseUrl,
      engineId: 'vllm',
      timeoutMs: 2_000,
      sleep: async () => {},
    }),
});

describeEngineContract({
  name: 'OllamaEngine',
  serverMode: 'ollama',
  makeEngine: ({ url }) => new OllamaEngine({ host: url, timeoutMs: 2_000, sleep: async () => {} }),
});

describeEngineContract({
  name: 'InstrumentedEngine',
  makeEngine: ({ baseUrl }) =>
    new InstrumentedEngine({
      engine: new OpenAICompatibleEngine({ baseUrl, timeoutMs: 2_000, sleep: async () => {} }),
      bus: new EventBus(),
    }),
});

describeEngineContract({
  name: 'ScriptedEngine',
  behaviours: ['answer', 'long', 'down'],
  async makeEngineShowing(behaviour) {
    if (behaviour === 'long') return new ScriptedEngine([assistantReply('word '.repeat(50))]);
    const engine = new ScriptedEngine([assistantReply('Two and two make four.')]);
    // A scripted engine is down once closed: it cannot be unreachable otherwise.
    if (behaviour === 'down') await engine.close();
    return engine;
  },
});

/** The tiny random GGUF model the embedded engine runs (llama.cpp loads it in milliseconds). */
const modelsDir = await mkdtemp(join(tmpdir(), 'engine-contract-'));
const modelPath = join(modelsDir, 'tiny.gguf');
await writeTinyGguf(modelPath);
afterAll(() => rm(modelsDir, { recursive: true, force: true }));
/** Without llama.cpp (the optional package is missing here) the embedded engine can only be down. */
const llamaLoads = await import('node-llama-cpp').then(
  () => true,
  () => false,
);

describeEngineContract({
  name: 'EmbeddedLlamaEngine',
  behaviours: llamaLoads ? ['answer', 'long', 'down'] : ['down'],
  async makeEngineShowing(behaviour: EngineBehaviour) {
    const path = behaviour === 'down' ? join(modelsDir, 'missing.gguf') : modelPath;
    // One thread: the model is tiny, and more threads than free cores make llama.cpp spin-wait.
    return new EmbeddedLlamaEngine({ modelPath: path, threads: 1, contextSize: 512 });
  },
});
