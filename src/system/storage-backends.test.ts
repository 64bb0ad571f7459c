import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usePostgres } from '../../test/support/postgres-server.js';
import { createRegistries, EventBus, JarvisError } from '../core/index.js';
import { SqliteSessionStore } from '../sessions/index.js';
import { PostgresTelemetryStore, SqliteTelemetryBackend } from '../telemetry/index.js';
import { assistantReply, ScriptedEngine } from '../testing/index.js';
import { configFromToml } from './config/index.js';
import {
  deferredSessionStore,
  openConfiguredSessionStore,
  openConfiguredTelemetryStore,
  openPostgresMemory,
  postgresOptions,
} from './storage-backends.js';
import { buildSystem } from './system.js';

const postgres = usePostgres();

const CONTEXT = { home: '/h/.openjarvis', cwd: '/w', homeDir: '/h' };

function config(text: string, env: Record<string, string> = {}) {
  return configFromToml(text, '/h/.openjarvis/config.toml', { ...CONTEXT, env }).config;
}

describe('storage backends', () => {
  it('keeps SQLite by default', async () => {
    const home = await mkdtemp(join(tmpdir(), 'jarvis-sessions-'));
    try {
      const dbPath = join(home, 'sessions.db');
      const store = openConfiguredSessionStore(config(`[sessions]\ndb_path = "${dbPath}"\n`));
      expect(store).toBeInstanceOf(SqliteSessionStore);
      expect(store.location).toBe(dbPath);
      await store.close();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('asks for a url when backend = "postgres" has none, naming both places to set it', () => {
    const chosen = config('[storage]\nbackend = "postgres"\n');
    expect(() => openConfiguredSessionStore(chosen)).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringMatching(/set `url` under \[storage\].*OPENJARVIS_DATABASE_URL/),
      }),
    );
  });

  it('passes url, pool size and connect timeout on; the store shows the url without its password', async () => {
    const chosen = config(
      '[storage]\nbackend = "postgres"\npool_size = 3\nconnect_timeout_ms = 1500\nstatement_timeout_ms = 2500\n',
      { OPENJARVIS_DATABASE_URL: 'postgres://me:Hidden-Pass-1@127.0.0.1:1/db' },
    );
    expect(postgresOptions(chosen)).toMatchObject({
      url: 'postgres://me:Hidden-Pass-1@127.0.0.1:1/db',
      poolSize: 3,
      connectTimeoutMs: 1500,
      statementTimeoutMs: 2500,
    });
    const store = openConfiguredSessionStore(chosen);
    expect(store.location).toBe('postgres://me:***@127.0.0.1:1/db');
    await store.close();
  });

  it('opens the real store on first use, retries a failed open, and fails once closed', async () => {
    let opens = 0;
    const real = new SqliteSessionStore({ dbPath: ':memory:' });
    const store = deferredSessionStore('somewhere', async () => {
      opens += 1;
      if (opens === 1) throw new Error('not yet');
      return real;
    });
    expect(opens).toBe(0);
    await expect(store.list()).rejects.toThrow('not yet');
    const session = await store.create({ name: 'later' });
    expect((await store.find('later'))?.id).toBe(session.id);
    expect(opens).toBe(2);
    await store.close();
    await store.close();
    const error = await store.list().catch((e: unknown) => e);
    expect(JarvisError.isInstance(error) && error.code).toBe('sessions_store_closed');
    await expect(real.list()).rejects.toMatchObject({ code: 'sessions_store_closed' });
  });
});

describe('openConfiguredTelemetryStore', () => {
  it('keeps telemetry in SQLite at [telemetry] db_path by default, redacted as asked', async () => {
    const home = await mkdtemp(join(tmpdir(), 'jarvis-telemetry-'));
    const dbPath = join(home, 'telemetry.db');
    try {
      const store = openConfiguredTelemetryStore(config(`[telemetry]\ndb_path = "${dbPath}"\n`), {
        redact: (text) => text.replaceAll('secret', '[X]'),
      });
      expect(store).toBeInstanceOf(SqliteTelemetryBackend);
      expect(store.location).toBe(dbPath);
      store.record(RECORD);
      store.record({ ...RECORD, model: 'a secret model' });
      expect((await store.recent()).map((record) => record.model)).toEqual(['a [X] model', 'm']);
      await store.close();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('picks PostgreSQL with [storage] backend = "postgres", showing the url without its password', async () => {
    const chosen = config('[storage]\nbackend = "postgres"\n', {
      OPENJARVIS_DATABASE_URL: 'postgres://me:Hidden-Pass-1@127.0.0.1:1/db',
    });
    const store = openConfiguredTelemetryStore(chosen);
    expect(store).toBeInstanceOf(PostgresTelemetryStore);
    expect(store.location).toBe('postgres://me:***@127.0.0.1:1/db');
    await store.close(); // nothing was queued: closing never connects
    expect(() => openConfiguredTelemetryStore(config('[storage]\nbackend = "postgres"\n'))).toThrow(
      expect.objectContaining({ code: 'config_invalid' }),
    );
  });
});

const RECORD = {
  timestampMs: 1,
  model: 'm',
  engine: 'e',
  promptTokens: 1,
  completionTokens: 1,
  totalTokens: 2,
  latencySeconds: 1,
  ttftSeconds: 0,
  throughputTokensPerSecond: 1,
  costUsd: 0,
  success: true,
} as const;

describe('storage backends on a real PostgreSQL', () => {
  it('keeps sessions and memory in the database [storage] names, across reopening', async (ctx) => {
    const url = await postgres.server(ctx).createDatabase();
    const chosen = config('[storage]\nbackend = "postgres"\npool_size = 2\n', {
      OPENJARVIS_DATABASE_URL: url,
    });
    const sessions = openConfiguredSessionStore(chosen);
    const bus = new EventBus({ recordHistory: true });
    const memory = openPostgresMemory(chosen, bus);
    const session = await sessions.create({ name: 'shared' });
    await memory.replaceSource('notes.md', [{ content: 'PostgreSQL keeps the leases' }]);
    await sessions.close();
    await memory.close();
    await expect(memory.count()).rejects.toMatchObject({ code: 'memory_closed' });

    const again = openConfiguredSessionStore(chosen);
    const memoryAgain = openPostgresMemory(chosen, bus);
    expect((await again.find('shared'))?.id).toBe(session.id);
    const [hit] = await memoryAgain.retrieve('lease');
    expect(hit).toMatchObject({ source: 'notes.md', content: 'PostgreSQL keeps the leases' });
    expect(bus.history.map((event) => event.type)).toEqual(['memory_store', 'memory_retrieve']);
    await again.close();
    await memoryAgain.close();
  });

  it('gives a system on PostgreSQL its telemetry there: records and traces a second system reads', async (ctx) => {
    const url = await postgres.server(ctx).createDatabase();
    const home = await mkdtemp(join(tmpdir(), 'jarvis-pg-telemetry-'));
    const systemOn = (engine: ScriptedEngine) =>
      buildSystem({
        config: configFromToml(
          '[storage]\nbackend = "postgres"\npool_size = 2\n',
          join(home, 'c.toml'),
          {
            home,
            cwd: home,
            homeDir: home,
            env: { OPENJARVIS_DATABASE_URL: url },
          },
        ).config,
        engine,
        env: {},
        registries: createRegistries(),
      });
    try {
      const writer = systemOn(new ScriptedEngine([assistantReply('Hi.')]));
      await writer.run('hello', { agent: 'simple' });
      await writer.close();
      const reader = systemOn(new ScriptedEngine([]));
      const [run] = await reader.telemetry().listRuns();
      expect(run).toMatchObject({ agent: 'simple', modelCalls: 1, status: 'ok' });
      expect((await reader.telemetry().getRun(run?.id ?? ''))?.spans).toHaveLength(1);
      expect(await reader.telemetry().recent()).toEqual([
        expect.objectContaining({ model: 'scripted', success: true }),
      ]);
      await reader.close();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
