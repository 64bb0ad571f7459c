import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CONFIG_BYTES, readConfigFile } from './file.js';
import { loadConfig } from './load.js';

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'jarvis-config-file-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The error `loadConfig` rejects with for `configPath`. */
async function loadError(configPath: string): Promise<Error & { code?: string }> {
  const outcome = await loadConfig({ configPath, env: {}, homeDir: folder, cwd: folder }).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error('expected loadConfig to fail');
  return outcome;
}

describe('readConfigFile', () => {
  it('refuses a FIFO without opening it (no writer would block the read forever)', async () => {
    const fifo = join(folder, 'config.toml');
    execFileSync('mkfifo', [fifo]);
    const error = await loadError(fifo);
    expect(error.code).toBe('config_unreadable');
    expect(error.message).toContain(`${fifo} (given with --config) is a FIFO, not a regular file`);
  });

  it('refuses a symlink to a FIFO, named by OPENJARVIS_CONFIG', async () => {
    const fifo = join(folder, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await symlink(fifo, join(folder, 'link.toml'));
    await expect(
      loadConfig({
        env: { OPENJARVIS_CONFIG: join(folder, 'link.toml') },
        homeDir: folder,
        cwd: folder,
      }),
    ).rejects.toThrow('(named by OPENJARVIS_CONFIG) is a FIFO, not a regular file');
  });

  it('refuses /dev/urandom as a character device instead of reading it forever', async () => {
    const error = await loadError('/dev/urandom');
    expect(error.code).toBe('config_unreadable');
    expect(error.message).toContain('/dev/urandom (given with --config) is a character device');
  });

  it('refuses a directory, saying so', async () => {
    const error = await loadError(folder);
    expect(error.code).toBe('config_unreadable');
    expect(error.message).toContain(`${folder} (given with --config) is a directory`);
  });

  it('refuses a file over 1 MiB, giving its size', async () => {
    const path = join(folder, 'huge.toml');
    await writeFile(path, `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    const error = await loadError(path);
    expect(error.code).toBe('config_unreadable');
    expect(error.message).toContain(
      `is ${MAX_CONFIG_BYTES + 3} bytes; config files are at most 1 MiB`,
    );
  });

  it('reads a regular file of exactly 1 MiB, and a /proc file that reports size 0', async () => {
    const path = join(folder, 'big.toml');
    const text = `# ${'x'.repeat(MAX_CONFIG_BYTES - 3)}\n`;
    await writeFile(path, text);
    expect(await readConfigFile({ home: folder, path, namedBy: 'option' })).toBe(text);
    const proc = await readConfigFile({
      home: folder,
      path: '/proc/self/status',
      namedBy: 'option',
    });
    expect(proc).toMatch(/^Name:/);
  });

  it('treats a missing default file as no config, and a missing named file as config_not_found', async () => {
    const path = join(folder, 'absent.toml');
    expect(await readConfigFile({ home: folder, path, namedBy: undefined })).toBeUndefined();
    await expect(readConfigFile({ home: folder, path, namedBy: 'option' })).rejects.toMatchObject({
      code: 'config_not_found',
      message: expect.stringContaining('does not exist'),
    });
    await expect(
      readConfigFile({ home: folder, path, namedBy: 'OPENJARVIS_CONFIG' }),
    ).rejects.toMatchObject({ code: 'config_not_found' });
  });
});
