import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  addNodeLlamaCppLocation,
  loadNodeLlamaCpp,
  type NodeLlamaCppModule,
  nodeLlamaCppLocations,
  resetNodeLlamaCppLoader,
} from './node-llama-cpp-loader.js';

const REPO_MODULES = join(dirname(fileURLToPath(import.meta.url)), '../../../node_modules');
const folders: string[] = [];

function notInstalled(): Error {
  return Object.assign(new Error("Cannot find package 'node-llama-cpp'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

/** An npm prefix whose node_modules/node-llama-cpp is the repo's real one (as `npm install --prefix` leaves it). */
async function runtimeFolder(): Promise<string> {
  const prefix = await mkdtemp(join(tmpdir(), 'jarvis-runtime-'));
  folders.push(prefix);
  await mkdir(join(prefix, 'node_modules'));
  await symlink(
    join(REPO_MODULES, 'node-llama-cpp'),
    join(prefix, 'node_modules', 'node-llama-cpp'),
  );
  return prefix;
}

afterEach(async () => {
  resetNodeLlamaCppLoader();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('loadNodeLlamaCpp', () => {
  it('uses the package installed beside openjarvis first, and caches it', async () => {
    const fake = { getLlama: () => undefined } as unknown as NodeLlamaCppModule;
    const importBare = vi.fn(async () => fake);
    addNodeLlamaCppLocation(await runtimeFolder());
    expect(await loadNodeLlamaCpp(importBare)).toBe(fake);
    expect(await loadNodeLlamaCpp(importBare)).toBe(fake);
    expect(importBare).toHaveBeenCalledTimes(1);
  });

  it('loads it from the runtime folder when it is not installed beside openjarvis', async () => {
    const prefix = await runtimeFolder();
    addNodeLlamaCppLocation(join(tmpdir(), 'jarvis-no-such-runtime'));
    addNodeLlamaCppLocation(prefix);
    expect(nodeLlamaCppLocations()).toHaveLength(2);
    const module = await loadNodeLlamaCpp(async () => {
      throw notInstalled();
    });
    expect(typeof module.getLlama).toBe('function');
    expect(typeof module.createModelDownloader).toBe('function');
  });

  it('rejects with the import error when no folder has it, and looks again next time', async () => {
    const missing = notInstalled();
    await expect(
      loadNodeLlamaCpp(async () => {
        throw missing;
      }),
    ).rejects.toBe(missing);
    addNodeLlamaCppLocation(await runtimeFolder());
    const module = await loadNodeLlamaCpp(async () => {
      throw notInstalled();
    });
    expect(typeof module.getLlama).toBe('function');
  });

  it('does not hide a broken install behind the runtime folder', async () => {
    addNodeLlamaCppLocation(await runtimeFolder());
    const broken = new Error('undefined symbol: ggml_init');
    await expect(
      loadNodeLlamaCpp(async () => {
        throw broken;
      }),
    ).rejects.toBe(broken);
  });
});
