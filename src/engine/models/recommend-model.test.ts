import { describe, expect, it } from 'vitest';
import { describeMachine, type MachineFacts, recommendModel } from './recommend-model.js';

const GB = 1_000_000_000;

function machine(overrides: Partial<MachineFacts>): MachineFacts {
  return {
    totalMemoryBytes: 16 * GB,
    freeMemoryBytes: 12 * GB,
    cores: 8,
    gpu: false,
    ...overrides,
  };
}

describe('recommendModel', () => {
  it('picks the largest model that fits memory and runs at a readable speed', () => {
    expect(recommendModel(machine({})).model.name).toBe('qwen3-8b');
    expect(recommendModel(machine({ cores: 4 })).model.name).toBe('qwen3-4b');
    expect(recommendModel(machine({ cores: 2 })).model.name).toBe('qwen3-1.7b');
    expect(recommendModel(machine({ totalMemoryBytes: 8 * GB })).model.name).toBe('qwen3-4b');
    expect(
      recommendModel(machine({ totalMemoryBytes: 6 * GB, freeMemoryBytes: 5 * GB })).model.name,
    ).toBe('qwen3-1.7b');
    // 1.8 GB of weights plus the context's cache do not fit in half of 4 GB.
    expect(
      recommendModel(machine({ totalMemoryBytes: 4 * GB, freeMemoryBytes: 3 * GB })).model.name,
    ).toBe('qwen3-0.6b');
  });

  it('looks at what is free, not only at what is installed', () => {
    expect(recommendModel(machine({ freeMemoryBytes: 3.5 * GB })).model.name).toBe('qwen3-1.7b');
  });

  it('falls back to the smallest model when nothing fits', () => {
    expect(
      recommendModel(machine({ totalMemoryBytes: 1 * GB, freeMemoryBytes: 0.2 * GB })).model.name,
    ).toBe('qwen3-0.6b');
  });

  it('uses the GPU memory when there is a GPU, without the CPU speed cap', () => {
    const gpu = machine({ cores: 2, gpu: 'cuda', vramBytes: 8 * GB, freeMemoryBytes: 2 * GB });
    expect(recommendModel(gpu).model.name).toBe('qwen3-8b');
    expect(recommendModel({ ...gpu, vramBytes: 4 * GB }).model.name).toBe('qwen3-4b');
    expect(recommendModel({ ...gpu, vramBytes: 2 * GB }).model.name).toBe('qwen3-0.6b');
  });

  it('says why in terms a person can check', () => {
    const { reason } = recommendModel(machine({ cores: 1 }));
    expect(reason).toBe('16.0 GB RAM (12.0 GB free), 1 core, no GPU');
    expect(describeMachine(machine({ gpu: 'vulkan', vramBytes: 6 * GB }))).toBe(
      '16.0 GB RAM (12.0 GB free), 8 cores, vulkan GPU with 6.0 GB',
    );
  });

  it('chooses only among the models the catalog has', () => {
    const [only] = recommendModel(machine({}), [
      {
        name: 'qwen3-1.7b',
        repository: 'Qwen/Qwen3-1.7B-GGUF',
        file: 'Qwen3-1.7B-Q8_0.gguf',
        quantization: 'Q8_0',
        sizeBytes: 1_830_000_000,
        sha256: undefined,
        pinned: false,
        license: 'apache-2.0',
      },
    ]).model.name.split(' ');
    expect(only).toBe('qwen3-1.7b');
  });
});
