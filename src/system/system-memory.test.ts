import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus, type MemoryBackend, Registry } from '../core/index.js';
import { SQLiteMemory } from '../memory/index.js';
import { registerBuiltinMemory } from './builtins.js';
import { configFromToml } from './config/index.js';
import { buildSystem, type JarvisSystem, type SystemRegistries } from './system.js';
import { createRegisteredMemory, type MemoryDependencies } from './system-memory.js';

let home: string;
let opened: (JarvisSystem | MemoryBackend)[];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-memory-'));
  opened = [];
});

afterEach(async () => {
  await Promise.all(opened.map((item) => item.close()));
  await rm(home, { recursive: true, force: true });
});

function memoryRegistry(): SystemRegistries['memory'] {
  const registry: SystemRegistries['memory'] = new Registry('memory');
  registerBuiltinMemory(registry);
  return registry;
}

function deps(): MemoryDependencies {
  return { dbPath: join(home, 'memory.db'), bus: new EventBus() };
}

describe('createRegisteredMemory', () => {
  it('builds the built-in sqlite backend with its database path', async () => {
    const memory = createRegisteredMemory('sqlite', memoryRegistry(), deps());
    opened.push(memory);
    expect(memory).toBeInstanceOf(SQLiteMemory);
    await memory.store('hello', { source: 'a.md' });
    expect(await memory.count()).toBe(1);
  });

  it('gives a registered backend class the path and the bus', () => {
    const seen: MemoryDependencies[] = [];
    class Recording extends SQLiteMemory {
      constructor(options: MemoryDependencies) {
        super(options);
        seen.push(options);
      }
    }
    const registry = memoryRegistry();
    registry.registerValue('recording', Recording);
    const given = deps();
    opened.push(createRegisteredMemory('recording', registry, given));
    expect(seen).toEqual([given]);
  });

  it('refuses a registered factory that makes no memory backend', () => {
    const registry = memoryRegistry();
    registry.registerValue('broken', (() => ({ store: () => undefined })) as never);
    expect(() => createRegisteredMemory('broken', registry, deps())).toThrow(
      expect.objectContaining({
        code: 'invalid_memory',
        message: expect.stringContaining("registered as 'broken' did not produce a memory backend"),
      }),
    );
  });
});

describe('an unknown memory backend in the config', () => {
  // Drift fix: tools, agents and engines name the closest key; memory gave the bare registry error.
  it('names the registered backends and the closest one, and where to fix it', () => {
    const toml = '[memory]\nbackend = "sqlit"\n';
    const { config } = configFromToml(toml, join(home, 'config.toml'), {
      home,
      cwd: home,
      homeDir: home,
    });
    const system = buildSystem({ config, registries: { memory: memoryRegistry() }, env: {} });
    opened.push(system);
    expect(() => system.memory()).toThrow(
      expect.objectContaining({
        code: 'registry_missing_key',
        message:
          "Unknown memory backend 'sqlit'. Available: sqlite. Did you mean 'sqlite'? Fix `backend` under " +
          '[memory] in the config, or register the backend from a module listed in `imports`.',
      }),
    );
  });
});
