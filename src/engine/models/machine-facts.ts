import { availableParallelism, freemem, totalmem } from 'node:os';
import { loadNodeLlamaCpp } from '../embedded/node-llama-cpp-loader.js';
import type { MachineFacts } from './recommend-model.js';

/**
 * Memory and cores of this machine, and the GPU llama.cpp finds (through node-llama-cpp, never building
 * anything); without node-llama-cpp, or when llama.cpp cannot start, the GPU is `false`.
 */
export async function machineFacts(): Promise<MachineFacts> {
  const base = {
    totalMemoryBytes: totalmem(),
    freeMemoryBytes: freemem(),
    cores: availableParallelism(),
  };
  try {
    const { getLlama, LlamaLogLevel } = await loadNodeLlamaCpp();
    const llama = await getLlama({
      gpu: 'auto',
      build: 'never',
      progressLogs: false,
      logLevel: LlamaLogLevel.disabled,
    });
    try {
      if (llama.gpu === false) return { ...base, gpu: false };
      const vram = await llama.getVramState();
      return { ...base, gpu: llama.gpu, vramBytes: vram.total };
    } finally {
      await llama.dispose();
    }
  } catch {
    return { ...base, gpu: false };
  }
}
