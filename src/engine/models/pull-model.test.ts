import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ScriptedModelHub, startScriptedModelHub } from '../../testing/scripted-model-hub.js';
import { createTinyGguf } from '../../testing/tiny-gguf.js';
import type { CatalogModel } from './catalog.js';
import {
  coalesceDownloaderWrites,
  finishWritesBeforeClosing,
  preferChunksInOrder,
} from './downloader-hooks.js';
import {
  ChunkAgents,
  fetchChunksOverHttp,
  keepAuthorizationOnOrigin,
} from './http-chunk-transport.js';
import { ModelPullError } from './model-pull-error.js';
import { type PullProgress, pullModel } from './pull-model.js';

const REPO = 'tiny/Tiny-GGUF';
const FILE = 'tiny-Q8_0.gguf';
/** About 11.6 MB: three of ipull's 5 MiB chunks, so a resume can start past the first. */
const GGUF = createTinyGguf({ embeddingLength: 512, feedForwardLength: 1024 });
const CHUNK_BYTES = 5 * 1024 * 1024;
/** ipull splits a file this size into three chunks (a resume fetches those not complete, one ranged GET each). */
const CHUNKS = Math.ceil(GGUF.length / CHUNK_BYTES);
/** The one ranged GET of a fresh pull: the whole file over one connection, in order. */
const WHOLE_FILE = `bytes=0-${GGUF.length - 1}`;
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

/** The scripted hub serving the tiny GGUF; with `crossOriginRedirect`, its downloads redirect to a second origin. */
async function startHub(
  advertisedSha256?: string,
  requiredToken?: string,
  crossOriginRedirect = false,
): Promise<ScriptedModelHub> {
  hub = await startScriptedModelHub({
    ...(requiredToken === undefined ? {} : { requiredToken }),
    crossOriginRedirect,
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

/** The `Range` headers the hub received, in order. */
function rangesAskedOf(server: ScriptedModelHub): string[] {
  return server.requests.flatMap((r) => (r.range === undefined ? [] : [r.range]));
}

/** Names in modelsDir that look like a usable model. */
async function modelFiles(): Promise<string[]> {
  return (await readdir(modelsDir)).filter((name) => name.endsWith('.gguf'));
}

beforeEach(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'jarvis-pull-'));
});

/** Files under `folder` this process holds open (Linux lists them in /proc/self/fd). */
async function openFilesUnder(folder: string): Promise<string[]> {
  const targets = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target.startsWith(`${folder}/`));
}

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  // Every pull, failed or not, has closed its files by the time it settles (a deleted file stays listed).
  const open = await openFilesUnder(modelsDir);
  await rm(modelsDir, { recursive: true, force: true });
  expect(open).toEqual([]);
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
    // One ranged GET of the whole file, read in order, so the file is hashed while it downloads (its prefix grows).
    expect(server.rangedGets(FILE)).toBe(1);
    expect(rangesAskedOf(server)).toEqual([WHOLE_FILE]);
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

  /**
   * A gated model on a hub that redirects downloads to a CDN on another origin: ipull tries without the token
   * first and takes it on the hub's 401, as with the real hub.
   */
  const startGatedHubWithCdn = () => startHub(undefined, 'hf_secret', true);

  /** Pulls the gated model with its token and checks the file is whole. */
  async function pullGatedModel(gated: ScriptedModelHub): Promise<void> {
    const pulled = await pullModel({
      model: `hf:${REPO}/${FILE}`,
      modelsDir,
      endpoint: gated.url,
      token: 'hf_secret',
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
  }

  it('sends the token to the hub only, never to the CDN origin the file is redirected to', async () => {
    const gated = await startGatedHubWithCdn();
    await pullGatedModel(gated);
    const hubOrigin = new URL(gated.url).origin;
    const cdnOrigin = new URL(gated.cdnUrl).origin;
    expect(cdnOrigin).not.toBe(hubOrigin);
    const toHub = gated.requests.filter((r) => r.origin === hubOrigin);
    const toCdn = gated.requests.filter((r) => r.origin === cdnOrigin);
    expect(toHub.some((r) => r.method === 'HEAD' && r.authorization === 'Bearer hf_secret')).toBe(
      true,
    );
    expect(toHub.some((r) => r.method === 'GET' && r.authorization === 'Bearer hf_secret')).toBe(
      true,
    );
    expect(gated.rangedGets(FILE)).toBe(1);
    expect(toCdn.length).toBeGreaterThan(1);
    expect(toCdn.filter((r) => r.authorization !== undefined)).toEqual([]);
  });

  it("keeps the token off the CDN also when ipull's own fetch takes a slice over", async () => {
    const gated = await startGatedHubWithCdn();
    // The node:http GET of the file gets a 503: ipull's fetch fetches that slice again (its retry).
    gated.refuseNextRangedGets(1);
    await pullGatedModel(gated);
    const cdnOrigin = new URL(gated.cdnUrl).origin;
    expect(gated.rangedGets(FILE)).toBe(2);
    const toCdn = gated.requests.filter((r) => r.origin === cdnOrigin);
    expect(toCdn.filter((r) => r.authorization !== undefined)).toEqual([]);
  });

  it('verifies the SHA-256 on a worker thread when asked, and refuses a wrong file there too', async () => {
    const server = await startHub();
    const pulled = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
      hashOnWorker: true,
    });
    expect(pulled).toMatchObject({ sha256: SHA256, downloaded: true });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    await rm(pulled.path);
    const wrong = pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith({ sha256: 'f'.repeat(64) }),
      hashOnWorker: true,
    });
    await expect(wrong).rejects.toMatchObject({ failure: 'checksum_mismatch' });
    expect(await modelFiles()).toEqual([]);
  });

  it('pulls hf:owner/repo:quant through the manifest endpoint', async () => {
    const server = await startHub();
    const pulled = await pullModel({ model: `hf:${REPO}:Q8_0`, modelsDir, endpoint: server.url });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    expect(server.requests.some((r) => r.path === `/v2/${REPO}/manifests/Q8_0`)).toBe(true);
  });

  it('after a cut midway, fetches again from the first chunk not complete, with a Range request', async () => {
    const server = await startHub();
    server.cutNextBody(CHUNK_BYTES + 500_000);
    const pulled = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    expect(rangesAskedOf(server)).toEqual([WHOLE_FILE, `bytes=${CHUNK_BYTES}-${GGUF.length - 1}`]);
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
    expect(server.rangedGets(FILE)).toBe(1);
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
      // Every read reported, so the abort lands in the last megabyte whatever the machine's speed.
      progressIntervalMs: 0,
      onProgress: (p) => {
        if (p.downloadedBytes > GGUF.length - 1_000_000) controller.abort(new Error('Ctrl-C'));
      },
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('cancelled');
    expect((error as Error).message).toContain('run the same pull again to resume');
    expect(await modelFiles()).toEqual([]);
    const rangesBefore = rangesAskedOf(server).length;
    const pulled = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
    // The second pull resumes: it skips the chunks ipull recorded as complete before the abort, and fetches the
    // others one ranged GET each (one stream from the first chunk would stop at the first complete one).
    const resumed = rangesAskedOf(server).slice(rangesBefore);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.length).toBeLessThan(CHUNKS);
    expect(resumed).not.toContain(WHOLE_FILE);
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

  it('refuses a hub endpoint that is not https (or http on this machine)', async () => {
    for (const endpoint of ['file:///tmp/x', 'http://mirror.example/', 'not a url']) {
      const error = await pullModel({ model: 'qwen3-1.7b', modelsDir, endpoint }).catch(
        (e: unknown) => e,
      );
      expect((error as ModelPullError).failure).toBe('invalid_source');
      expect((error as Error).message).toContain('(HF_ENDPOINT)');
    }
  });

  it('refuses plain http to another machine', async () => {
    const error = await pullModel({ model: 'http://example.com/m.gguf', modelsDir }).catch(
      (e: unknown) => e,
    );
    expect((error as ModelPullError).failure).toBe('invalid_source');
  });

  it('fails as stalled when the server stops sending, and the next pull completes', async () => {
    const server = await startHub();
    server.stallBodies(100_000);
    const started = performance.now();
    const error = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
      stallTimeoutMs: 1_000,
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('stalled');
    expect((error as ModelPullError).code).toBe('model_pull_failed');
    expect((error as Error).message).toContain(
      `no data from ${new URL(server.url).origin} for 1 s`,
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await modelFiles()).toEqual([]);
    server.stallBodies(undefined);
    const pulled = await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
  });

  it('fails at once, naming the address, when nothing listens there', async () => {
    const endpoint = await closedPortUrl();
    const error = await pullModel({
      model: `hf:${REPO}/${FILE}`,
      modelsDir,
      endpoint,
      stallTimeoutMs: 10_000,
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('unreachable');
    expect((error as Error).message).toContain(
      `cannot reach ${new URL(endpoint).origin}: ECONNREFUSED`,
    );
  });

  it('ends a pull whose hub never answers, also before the downloader has the file (hf:repo:quant)', async () => {
    const endpoint = await closedPortUrl();
    const started = performance.now();
    const error = await pullModel({
      model: `hf:${REPO}:Q8_0`,
      modelsDir,
      endpoint,
      stallTimeoutMs: 1_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPullError);
    expect(['stalled', 'download_failed']).toContain((error as ModelPullError).failure);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('says a gated model needs HF_TOKEN, and pulls it with one', async () => {
    const server = await startHub(undefined, 'hf_gate');
    const error = await pullModel({
      model: `hf:${REPO}/${FILE}`,
      modelsDir,
      endpoint: server.url,
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('access_denied');
    expect((error as ModelPullError).code).toBe('model_access_denied');
    expect((error as Error).message).toContain('refused access (HTTP 401)');
    expect((error as Error).message).toContain('set HF_TOKEN');
    const wrong = await pullModel({
      model: `hf:${REPO}/${FILE}`,
      modelsDir,
      endpoint: server.url,
      token: 'hf_other',
    }).catch((e: unknown) => e);
    expect((wrong as Error).message).toContain('the token in HF_TOKEN has no access');
    expect((wrong as Error).message).not.toContain('hf_other');
    const pulled = await pullModel({
      model: `hf:${REPO}/${FILE}`,
      modelsDir,
      endpoint: server.url,
      token: 'hf_gate',
    });
    expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
  });

  it('waits while another live process holds the pull lock, and takes over a dead one', async () => {
    const server = await startHub();
    const staging = join(modelsDir, '.partial');
    await mkdir(staging, { recursive: true });
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const lock = join(staging, 'pull.lock');
      await writeFile(lock, JSON.stringify({ pid: sleeper.pid, host: hostname() }));
      const waiting: number[] = [];
      const pulling = pullModel({
        model: 'tiny',
        modelsDir,
        endpoint: server.url,
        catalog: catalogWith(),
        onWaiting: (holder) => {
          waiting.push(holder.pid);
          void rm(lock);
        },
      });
      const pulled = await pulling;
      expect(waiting).toEqual([sleeper.pid]);
      expect(Buffer.compare(await readFile(pulled.path), GGUF)).toBe(0);
      expect(await readdir(staging)).toEqual([]);
    } finally {
      sleeper.kill();
    }
    // A lock left by a process that is gone is taken over without waiting.
    await rm(join(modelsDir, LOCAL));
    await writeFile(
      join(staging, 'pull.lock'),
      JSON.stringify({ pid: await exitedPid(), host: hostname() }),
    );
    const waited: number[] = [];
    await pullModel({
      model: 'tiny',
      modelsDir,
      endpoint: server.url,
      catalog: catalogWith(),
      onWaiting: (holder) => waited.push(holder.pid),
    });
    expect(waited).toEqual([]);
  });

  it('says a file the hub does not have was not found', async () => {
    const server = await startHub();
    const error = await pullModel({
      model: `hf:${REPO}/missing-Q4_K_M.gguf`,
      modelsDir,
      endpoint: server.url,
    }).catch((e: unknown) => e);
    expect((error as ModelPullError).failure).toBe('unknown_model');
    expect((error as Error).message).toContain(
      `${server.url}${REPO}/resolve/main/missing-Q4_K_M.gguf was not found (HTTP 404)`,
    );
  });
});

describe("the downloader hooks on node-llama-cpp's own downloader", () => {
  it('close a download cancelled right after a write was handed over, leaving no file open', async () => {
    const server = await startHub();
    const { createModelDownloader } = await import('node-llama-cpp');
    const downloader = await createModelDownloader({
      modelUri: `hf:${REPO}/${FILE}`,
      dirPath: modelsDir,
      deleteTempFileOnCancel: false,
      tokens: { huggingFace: null as unknown as string },
      endpoints: { huggingFace: server.url },
    });
    expect(coalesceDownloaderWrites(downloader)).toBe(true);
    expect(finishWritesBeforeClosing(downloader)).toBe(true);
    const { writeStream } = (
      downloader as unknown as {
        _downloader: {
          options: { writeStream: { write(at: number, bytes: Uint8Array): unknown } };
        };
      }
    )._downloader.options;
    // The write's batch starts a microtask after the cancel: before the hook, ipull's close had already closed the
    // writer by then, and the write opened the file again and kept it open.
    const pending = writeStream.write(0, GGUF.subarray(0, 4096));
    await downloader.cancel({ deleteTempFile: false });
    await pending;
    expect(await openFilesUnder(modelsDir)).toEqual([]);
    // Nothing was received, so ipull keeps the partial name (it renames on close once every byte has arrived).
    expect(await readdir(modelsDir)).toEqual([`${LOCAL}.ipull`]);
    expect(
      Buffer.compare(await readFile(join(modelsDir, `${LOCAL}.ipull`)), GGUF.subarray(0, 4096)),
    ).toBe(0);
  });

  it('say when they cannot keep the token on its origin, and change nothing', () => {
    expect(keepAuthorizationOnOrigin({}, 'http://127.0.0.1')).toBe(false);
    expect(keepAuthorizationOnOrigin(null, 'http://127.0.0.1')).toBe(false);
  });

  it("fetch the chunks over node:http with ipull's ranges, and the file is whole", async () => {
    const server = await startHub();
    const { createModelDownloader } = await import('node-llama-cpp');
    const downloader = await createModelDownloader({
      modelUri: `hf:${REPO}/${FILE}`,
      dirPath: modelsDir,
      tokens: { huggingFace: null as unknown as string },
      endpoints: { huggingFace: server.url },
    });
    const agents = new ChunkAgents();
    try {
      const connect = vi.spyOn(agents.http, 'createConnection');
      expect(fetchChunksOverHttp(downloader, agents)).toBe(true);
      expect(preferChunksInOrder(downloader)).toBe(true);
      await downloader.download();
      expect(Buffer.compare(await readFile(join(modelsDir, LOCAL)), GGUF)).toBe(0);
      // One ranged GET per chunk, all through this pull's own keep-alive connections.
      expect(server.rangedGets(FILE)).toBe(CHUNKS);
      expect(connect).toHaveBeenCalled();
      expect(connect.mock.calls.length).toBeLessThanOrEqual(CHUNKS);
    } finally {
      agents.destroy();
    }
  });
});

/** A loopback URL nothing listens on (a port just released). */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

/** The pid of a process that has exited. */
async function exitedPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? 0;
}
