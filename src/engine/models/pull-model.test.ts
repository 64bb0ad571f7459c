import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelHub, startScriptedModelHub } from '../../testing/scripted-model-hub.js';
import { createTinyGguf } from '../../testing/tiny-gguf.js';
import type { CatalogModel } from './catalog.js';
import { ModelPullError } from './model-pull-error.js';
import { type PullProgress, pullModel } from './pull-model.js';

const REPO = 'tiny/Tiny-GGUF';
const FILE = 'tiny-Q8_0.gguf';
/** About 11.6 MB: three of ipull's 5 MiB chunks, so a resume can start past the first. */
const GGUF = createTinyGguf({ embeddingLength: 512, feedForwardLength: 1024 });
const CHUNK_BYTES = 5 * 1024 * 1024;
/** ipull fetches a file this size as three ranged GETs in parallel, one per chunk. */
const CHUNKS = Math.ceil(GGUF.length / CHUNK_BYTES);
/** node-llama-cpp names files of `hf:` URIs `hf_<owner>_<file>`. */
const LOCAL = `hf_tiny_${FILE}`;
const SHA256 = createHash('sha256').update(GGUF).digest('hex');

function catalogWith(overrides: Partial<CatalogModel> = {}): readonly CatalogModel[] {
  return [
    {
      name: 'tiny',
      repository: REPO,
      file: FILE,
      quantization: 'Q8_0',
      sizeBytes: GGUF.length,
      sha256: SHA256,
      pinned: true,
      license: 'mit',
      ...overrides,
    },
  ];
}

let hub: ScriptedModelHub | undefined;
let modelsDir = '';

async function startHub(advertisedSha256?: string): Promise<ScriptedModelHub> {
  hub = await startScriptedModelHub({
    files: [
      {
        repository: REPO,
        path: FILE,
        content: GGUF,
        quantizations: ['Q8_0'],
        ...(advertisedSha256 === undefined ? {} : { advertisedSha256 }),
      },
    ],
  });
  return hub;
}

/** Names in modelsDir that look like a usable model. */
async function modelFiles(): Promise<string[]> {
  return (await readdir(modelsDir)).filter((name) => name.endsWith('.gguf'));
}

beforeEach(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'jarvis-pull-'));
});

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await rm(modelsDir, { recursive: true, force: true });
});

describe('pullModel', () => {
  it('pulls a catalog model: verified, renamed into place, progress reported', async () => {
    const server = await startHub();
    const progress: PullProgress[] = [];
    const pulled = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
      onProgress: (p) => progress.push(p),
    });
    expect(pulled).toMatchObject({
      fileName: LOCAL,
      sizeBytes: GGUF.length,
      sha256: SHA256,
      downloaded: true,
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    expect(await modelFiles()).toEqual([LOCAL]);
    expect(progress.at(-1)).toMatchObject({
      totalBytes: GGUF.length,
      downloadedBytes: GGUF.length,
    });
    expect(server.requests.some((r) => r.path === `/${REPO}/resolve/main/${FILE}`)).toBe(true);

    const again = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
    });
    expect(again.downloaded).toBe(false);
    expect(server.rangedGets(FILE)).toBe(CHUNKS);
  });

  it('pulls hf:owner/repo/file.gguf checked against the hub SHA-256 header, sending the token', async () => {
    const server = await startHub();
    const pulled = await pullModel({
      model: `hf:${REPO}/${FILE}`,
      modelsDir,
      endpoint: server.url,
      token: 'hf_secret',
    });
    expect(pulled.sha256).toBe(SHA256);
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    const head = server.requests.find((r) => r.method === 'HEAD' && r.path.includes('/resolve/'));
    expect(head?.authorization).toBe('Bearer hf_secret');
  });

  it('pulls hf:owner/repo:quant through the manifest endpoint', async () => {
    const server = await startHub();
    const pulled = await pullModel({ model: `hf:${REPO}:Q8_0`, modelsDir, endpoint: server.url });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    expect(server.requests.some((r) => r.path === `/v2/${REPO}/manifests/Q8_0`)).toBe(true);
  });

  it('re-fetches only the chunk the server cut midway, with a Range request', async () => {
    const server = await startHub();
    server.cutNextBody(500_000);
    const pulled = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    const ranges = server.requests.flatMap((r) => (r.range === undefined ? [] : [r.range]));
    expect(ranges).toHaveLength(CHUNKS + 1);
    expect(new Set(ranges).size).toBe(CHUNKS);
  });

  it('refuses a file whose SHA-256 does not match and leaves nothing that looks like a model', async () => {
    const server = await startHub();
    const wrong = 'a'.repeat(64);
    const error = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith({ sha256: wrong }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPullError);
    expect((error as ModelPullError).failure).toBe('checksum_mismatch');
    expect((error as Error).message).toContain(`expected ${wrong}, got ${SHA256}`);
    expect(await modelFiles()).toEqual([]);
    expect(await readdir(join(modelsDir, '.partial'))).toEqual([]);
  });

  it('refuses a file that does not match the SHA-256 the hub advertises', async () => {
    const server = await startHub('b'.repeat(64));
    const error = await pullModel({
      model: `hf:${REPO}/${FILE}`,
      modelsDir,
      endpoint: server.url,
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('checksum_mismatch');
    expect(await modelFiles()).toEqual([]);
  });

  it('downloads once when two pulls of one model run at the same time', async () => {
    const server = await startHub();
    const options = { model: 'tiny', modelsDir, endpoint: server.url, catalog: catalogWith() };
    const [a, b] = await Promise.all([pullModel(options), pullModel(options)]);
    expect(a.path).toBe(b.path);
    expect(server.rangedGets(FILE)).toBe(CHUNKS);
  });

  it('stops on the abort signal, leaves no model file, and a later pull resumes', async () => {
    const server = await startHub();
    const controller = new AbortController();
    const error = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.downloadedBytes > GGUF.length - 1_000_000) controller.abort(new Error('Ctrl-C'));
      },
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('cancelled');
    expect((error as Error).message).toContain('run the same pull again to resume');
    expect(await modelFiles()).toEqual([]);
    const before = server.rangedGets(FILE);
    const pulled = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    // The second pull resumes: it skips the chunks ipull recorded as complete before the abort.
    expect(server.rangedGets(FILE) - before).toBeLessThan(CHUNKS);
  });

  it('refuses up front when the disk lacks room', async () => {
    const server = await startHub();
    const error = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
      statfs: async () => ({ bavail: 1, bsize: 4096 }),
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('disk_full');
    expect((error as Error).message).toMatch(/not enough disk space .* 4\.1 kB available/);
    expect(server.rangedGets(FILE)).toBe(0);
    expect(await modelFiles()).toEqual([]);
  });

  it('fails on an unknown name listing the catalog names with a suggestion', async () => {
    const error = await pullModel({ model: 'qwen3-1.8b', modelsDir }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('unknown_model');
    expect((error as Error).message).toContain(
      "Unknown model 'qwen3-1.8b'. Available: llama3.2-3b, qwen3-0.6b, qwen3-1.7b, qwen3-4b, qwen3-8b. Did you mean 'qwen3-1.7b'?",
    );
  });

  it('refuses plain http to another machine', async () => {
    const error = await pullModel({ model: 'http://example.com/m.gguf', modelsDir }).catch(
      (e: unknown) => e,
    );
    expect((error as ModelPullError).failure).toBe('invalid_source');
  });
});
