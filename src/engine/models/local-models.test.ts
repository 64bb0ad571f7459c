import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTinyGguf, TINY_GGUF_CHATML_TEMPLATE } from '../../testing/tiny-gguf.js';
import { type GgufRuntime, listLocalModels, quantizationInFileName } from './local-models.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jarvis-local-models-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Overwrites the u32 value of metadata `key` in a tiny GGUF (the key string, then the type, then the value). */
function withU32(gguf: Uint8Array, key: string, value: number): Uint8Array {
  const copy = gguf.slice();
  const at = Buffer.from(copy.buffer).indexOf(key);
  if (at < 0) throw new Error(`no ${key} in the file`);
  new DataView(copy.buffer).setUint32(at + key.length + 4, value, true);
  return copy;
}

function missingRuntime(): Promise<GgufRuntime> {
  return Promise.reject(
    Object.assign(new Error("Cannot find package 'node-llama-cpp'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    }),
  );
}

describe('listLocalModels', () => {
  it('gives [] for a missing folder and for a folder without GGUF files, without loading the runtime', async () => {
    let loads = 0;
    const loadRuntime = () => {
      loads += 1;
      return missingRuntime();
    };
    expect(await listLocalModels(join(dir, 'nope'), { loadRuntime })).toEqual([]);
    expect(await listLocalModels(dir, { loadRuntime })).toEqual([]);
    await mkdir(join(dir, '.partial'));
    await writeFile(join(dir, '.partial', 'half.gguf'), createTinyGguf());
    await writeFile(join(dir, 'notes.txt'), 'hello');
    await mkdir(join(dir, 'folder.gguf'));
    expect(await listLocalModels(dir, { loadRuntime })).toEqual([]);
    expect(loads).toBe(0);
  });

  it('reads size, name, architecture, file type, context length and chat template, sorted by name', async () => {
    const big = createTinyGguf({ embeddingLength: 128, layerCount: 2, contextLength: 8192 });
    const small = createTinyGguf({ contextLength: 2048, name: 'small one', chatTemplate: null });
    await writeFile(join(dir, 'b-small.gguf'), small);
    await writeFile(join(dir, 'a-big.GGUF'), big);

    const models = await listLocalModels(dir);

    expect(models).toEqual([
      {
        fileName: 'a-big.GGUF',
        path: join(dir, 'a-big.GGUF'),
        sizeBytes: big.length,
        name: 'tiny-random-llama',
        architecture: 'llama',
        quantization: 'F32',
        contextLength: 8192,
        chatTemplate: 'chatML',
        templateInFile: true,
      },
      {
        fileName: 'b-small.gguf',
        path: join(dir, 'b-small.gguf'),
        sizeBytes: small.length,
        name: 'small one',
        architecture: 'llama',
        quantization: 'F32',
        contextLength: 2048,
        chatTemplate: 'general',
        templateInFile: false,
      },
    ]);
    expect(big.length).toBeGreaterThan(small.length);
  });

  it('resolves the chat wrapper from the name when the file has no template, else falls back to general', async () => {
    await writeFile(join(dir, 'plain.gguf'), createTinyGguf({ chatTemplate: null }));
    await writeFile(
      join(dir, 'named.gguf'),
      createTinyGguf({ chatTemplate: null, name: 'Llama 3.1 8B Instruct' }),
    );
    const [named, plain] = await listLocalModels(dir);
    expect(named).toMatchObject({ chatTemplate: 'llama3.1', templateInFile: false });
    expect(plain).toMatchObject({ chatTemplate: 'general', templateInFile: false });
  });

  it('falls back quietly past a Jinja template that does not parse, and keeps other templates as jinjaTemplate', async () => {
    const broken = `{% for %}<|im_start|>${TINY_GGUF_CHATML_TEMPLATE}`;
    await writeFile(join(dir, 'broken.gguf'), createTinyGguf({ chatTemplate: broken }));
    await writeFile(
      join(dir, 'custom.gguf'),
      createTinyGguf({
        chatTemplate:
          "{% for message in messages %}{{ '### ' + message['role'] + ': ' + message['content'] + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '### assistant: ' }}{% endif %}",
      }),
    );
    const [brokenModel, custom] = await listLocalModels(dir);
    expect(brokenModel).toMatchObject({ chatTemplate: 'chatML', templateInFile: true });
    expect(brokenModel?.problem).toBeUndefined();
    expect(custom).toMatchObject({ chatTemplate: 'jinjaTemplate', templateInFile: true });
  });

  it("names the file type as llama.cpp does, else takes the file name's tag; absurd context lengths are dropped", async () => {
    const gguf = createTinyGguf({ chatTemplate: null });
    await writeFile(join(dir, 'a.gguf'), withU32(gguf, 'general.file_type', 15)); // MOSTLY_Q4_K_M
    const unknownType = withU32(gguf, 'general.file_type', 9999);
    await writeFile(
      join(dir, 'b-Q5_K_S.gguf'),
      withU32(unknownType, 'llama.context_length', 0xffff_ffff),
    );
    await writeFile(
      join(dir, 'c.gguf'),
      withU32(unknownType, 'llama.context_length', 0), // nor a context length of 0
    );
    const [a, b, c] = await listLocalModels(dir);
    expect(a).toMatchObject({ quantization: 'Q4_K_M', contextLength: 4096 });
    expect(b).toMatchObject({ quantization: 'Q5_K_S', contextLength: 0xffff_ffff });
    expect(c?.quantization).toBeUndefined();
    expect(c?.contextLength).toBeUndefined();
    expect(c?.problem).toBeUndefined();
  });

  it('reports truncated, non-GGUF and empty files as one-line problems, never throwing', async () => {
    const gguf = createTinyGguf({ chatTemplate: null });
    await writeFile(join(dir, 'a-header-cut.gguf'), gguf.slice(0, 300));
    await writeFile(join(dir, 'b-weights-cut.gguf'), gguf.slice(0, gguf.length - 1000));
    await writeFile(join(dir, 'c-text.gguf'), 'this is not a model\n');
    await writeFile(join(dir, 'd-empty.gguf'), '');
    await symlink(join(dir, 'gone'), join(dir, 'e-dangling.gguf'));

    const [header, weights, text, empty, dangling] = await listLocalModels(dir);

    expect(header).toEqual({
      fileName: 'a-header-cut.gguf',
      path: join(dir, 'a-header-cut.gguf'),
      sizeBytes: 300,
      problem: expect.stringMatching(
        /^truncated: the file has 300 bytes but its header ends at byte \d+; download it again$/,
      ),
    });
    expect(weights).toMatchObject({
      sizeBytes: gguf.length - 1000,
      contextLength: 4096,
      problem: `truncated: the file has ${gguf.length - 1000} bytes but its tensors end at byte ${gguf.length}; download it again`,
    });
    expect(text).toMatchObject({
      sizeBytes: 20,
      problem: 'not a GGUF file (it does not start with the GGUF magic bytes)',
    });
    expect(empty).toMatchObject({ sizeBytes: 0, problem: 'empty file' });
    expect(dangling).toMatchObject({ sizeBytes: 0, problem: 'cannot read the file (ENOENT)' });
    for (const model of [header, weights, text, empty, dangling])
      expect(model?.problem).not.toContain('\n');
  });

  it('says the runtime is not installed, keeping size and the file name tag', async () => {
    await writeFile(join(dir, 'Qwen3-1.7B-Q8_0.gguf'), createTinyGguf());
    const size = (await stat(join(dir, 'Qwen3-1.7B-Q8_0.gguf'))).size;
    expect(await listLocalModels(dir, { loadRuntime: missingRuntime })).toEqual([
      {
        fileName: 'Qwen3-1.7B-Q8_0.gguf',
        path: join(dir, 'Qwen3-1.7B-Q8_0.gguf'),
        sizeBytes: size,
        quantization: 'Q8_0',
        problem: 'metadata unavailable: the embedded runtime is not installed',
      },
    ]);
    const broken = await listLocalModels(dir, {
      loadRuntime: () => Promise.reject(new Error('bad ELF\nheader')),
    });
    expect(broken[0]?.problem).toBe(
      'metadata unavailable: the embedded runtime could not be loaded (bad ELF header)',
    );
  });

  it('gives up on a file whose metadata takes too long, and stops when the caller aborts', async () => {
    await writeFile(join(dir, 'slow.gguf'), createTinyGguf());
    const hanging = {
      readGgufFileInfo: (_path: string, options?: { signal?: AbortSignal }) =>
        new Promise((_resolve, reject) => {
          options?.signal?.addEventListener('abort', () => reject(options.signal?.reason));
        }),
    } as unknown as GgufRuntime;
    const models = await listLocalModels(dir, {
      loadRuntime: async () => hanging,
      readTimeoutMs: 20,
    });
    expect(models[0]?.problem).toBe('metadata unreadable: reading it took longer than 0.02 s');

    const controller = new AbortController();
    const listing = listLocalModels(dir, {
      loadRuntime: async () => hanging,
      signal: controller.signal,
    });
    controller.abort(new Error('stop'));
    await expect(listing).rejects.toThrow('stop');
  });
});

describe('quantizationInFileName', () => {
  it('finds the tag llama.cpp puts in file names', () => {
    expect(quantizationInFileName('Qwen3-1.7B-Q8_0.gguf')).toBe('Q8_0');
    expect(quantizationInFileName('Llama-3.2-3B-Instruct-Q4_K_M.gguf')).toBe('Q4_K_M');
    expect(quantizationInFileName('hf_tiny_tiny-q5_k_s.gguf')).toBe('Q5_K_S');
    expect(quantizationInFileName('model.IQ2_XXS.gguf')).toBe('IQ2_XXS');
    expect(quantizationInFileName('phi-f16.gguf')).toBe('F16');
    expect(quantizationInFileName('mystery.gguf')).toBeUndefined();
    expect(quantizationInFileName('Qwen3-4B.gguf')).toBeUndefined();
  });
});
