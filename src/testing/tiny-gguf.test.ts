import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTinyGguf,
  TINY_GGUF_CHATML_TEMPLATE,
  TINY_GGUF_TOKENS,
  writeTinyGguf,
} from './tiny-gguf.js';

describe('createTinyGguf', () => {
  it('writes a GGUF v3 header with the tensor and metadata counts', () => {
    const bytes = createTinyGguf();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('GGUF');
    expect(view.getUint32(4, true)).toBe(3);
    // token_embd, output_norm, output, then 9 tensors per layer.
    expect(view.getBigUint64(8, true)).toBe(12n);
    expect(view.getBigUint64(16, true)).toBe(23n);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    expect(
      Buffer.from(createTinyGguf({ seed: 7 })).equals(Buffer.from(createTinyGguf({ seed: 7 }))),
    ).toBe(true);
    expect(
      Buffer.from(createTinyGguf({ seed: 7 })).equals(Buffer.from(createTinyGguf({ seed: 8 }))),
    ).toBe(false);
  });

  it('stays tiny: well under a megabyte with the defaults', () => {
    expect(createTinyGguf().byteLength).toBeLessThan(400_000);
  });

  it('rejects a head count that does not divide the embedding length', () => {
    expect(() => createTinyGguf({ embeddingLength: 30, headCount: 4 })).toThrow(/must divide/);
  });
});

describe('the tiny GGUF read back by node-llama-cpp', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tiny-gguf-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('parses with the expected architecture, vocabulary, template and tensor shapes', async (context) => {
    const nodeLlamaCpp = await import('node-llama-cpp').catch(() => undefined);
    if (nodeLlamaCpp === undefined) {
      context.skip(
        'skipped: node-llama-cpp (a devDependency) is not installed, so the file cannot be parsed',
      );
      return;
    }
    const path = join(dir, 'two-layers.gguf');
    await writeTinyGguf(path, { layerCount: 2, embeddingLength: 32, headCount: 2, name: 'probe' });
    const info = await nodeLlamaCpp.readGgufFileInfo(path);
    const metadata = info.metadata as unknown as Record<string, Record<string, unknown>>;
    expect(metadata.general).toMatchObject({ architecture: 'llama', name: 'probe', alignment: 32 });
    expect(metadata.llama).toMatchObject({
      embedding_length: 32,
      block_count: 2,
      context_length: 4096,
    });
    const tokenizer = metadata.tokenizer as {
      ggml: Record<string, unknown>;
      chat_template: string;
    };
    expect(tokenizer.ggml.model).toBe('gpt2');
    expect(tokenizer.ggml.tokens).toHaveLength(259);
    expect((tokenizer.ggml.tokens as string[])[TINY_GGUF_TOKENS.imStart]).toBe('<|im_start|>');
    expect((tokenizer.ggml.tokens as string[])[0x41]).toBe('A');
    expect(tokenizer.chat_template).toBe(TINY_GGUF_CHATML_TEMPLATE);
    const shapes = Object.fromEntries(
      (info.tensorInfo ?? []).map((tensor) => [tensor.name, tensor.dimensions.map(Number)]),
    );
    expect(Object.keys(shapes)).toHaveLength(3 + 2 * 9);
    expect(shapes['token_embd.weight']).toEqual([32, 259]);
    expect(shapes['blk.1.ffn_down.weight']).toEqual([128, 32]);
  });
});
