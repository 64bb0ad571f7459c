import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JarvisError } from '../../core/index.js';
import { initConfig } from './init.js';
import { STARTER_CONFIG } from './starter.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-init-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('initConfig', () => {
  it('writes the starter config where loadConfig looks, and refuses to overwrite without force', async () => {
    const env = { OPENJARVIS_HOME: join(home, 'oj') };
    const written = await initConfig({ env, cwd: home, homeDir: home });
    expect(written).toEqual({ path: join(home, 'oj', 'config.toml'), replaced: false });
    expect(await readFile(written.path, 'utf8')).toBe(STARTER_CONFIG);
    const again = await initConfig({ env, cwd: home, homeDir: home }).catch(
      (error: unknown) => error,
    );
    expect(JarvisError.isInstance(again) && again.code).toBe('config_exists');
    await writeFile(written.path, 'edited');
    expect(await initConfig({ env, cwd: home, homeDir: home, force: true })).toMatchObject({
      replaced: true,
    });
    expect(await readFile(written.path, 'utf8')).toBe(STARTER_CONFIG);
  });

  it('follows OPENJARVIS_CONFIG and an explicit path', async () => {
    const viaEnv = await initConfig({
      env: { OPENJARVIS_CONFIG: join(home, 'env.toml') },
      cwd: home,
      homeDir: home,
    });
    expect(viaEnv.path).toBe(join(home, 'env.toml'));
    const named = await initConfig({
      env: {},
      cwd: home,
      homeDir: home,
      configPath: 'sub/named.toml',
    });
    expect(named.path).toBe(join(home, 'sub', 'named.toml'));
  });
});
