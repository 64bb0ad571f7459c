import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InferenceEngine } from '../core/index.js';
import { type EngineCandidate, probeEngines } from './discovery.js';

interface FakeState {
  closed: boolean;
}

function candidate(
  key: string,
  health: () => Promise<boolean>,
  state: FakeState = { closed: false },
): EngineCandidate {
  return {
    key,
    address: `http://127.0.0.1/${key}`,
    create: () =>
      ({
        engineId: key,
        health,
        close: async () => {
          state.closed = true;
        },
      }) as unknown as InferenceEngine,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('probeEngines', () => {
  it('returns the healthy engines, preferred key first, and closes the others', async () => {
    const down: FakeState = { closed: false };
    const broken: FakeState = { closed: false };
    const found = await probeEngines(
      [
        candidate('vllm', async () => true),
        candidate('ollama', async () => false, down),
        candidate(
          'llamacpp',
          async () => {
            throw new Error('boom');
          },
          broken,
        ),
        candidate('lmstudio', async () => true),
      ],
      { preferredKey: 'lmstudio' },
    );
    expect(found.map((engine) => engine.key)).toEqual(['lmstudio', 'vllm']);
    expect(found[0]?.address).toBe('http://127.0.0.1/lmstudio');
    expect(down.closed).toBe(true);
    expect(broken.closed).toBe(true);
  });

  it('gives up on engines that do not answer within the probe time', async () => {
    vi.useFakeTimers();
    const hung: FakeState = { closed: false };
    const pending = probeEngines(
      [
        candidate('sglang', () => new Promise<boolean>(() => undefined), hung),
        candidate('vllm', async () => true),
      ],
      { timeoutMs: 400 },
    );
    await vi.advanceTimersByTimeAsync(400);
    const found = await pending;
    expect(found.map((engine) => engine.key)).toEqual(['vllm']);
    expect(hung.closed).toBe(true);
  });

  it('keeps candidate order without a preferred key and skips candidates that cannot be created', async () => {
    const found = await probeEngines([
      candidate('a', async () => true),
      {
        key: 'bad',
        address: 'nowhere',
        create: () => {
          throw new Error('no such engine');
        },
      },
      candidate('b', async () => true),
    ]);
    expect(found.map((engine) => engine.key)).toEqual(['a', 'b']);
  });
});
