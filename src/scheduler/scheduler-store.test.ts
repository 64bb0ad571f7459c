import { homedir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { expandHome, SchedulerStore } from './scheduler-store.js';
import { SqliteSchedulerBackend } from './scheduler-store-backend.js';
import {
  claimOptions,
  describeSchedulerStoreContract,
  contractTask as task,
} from './scheduler-store-contract.case.test.js';
import { tempDir } from './scheduler-test-support.case.test.js';
import { SCHEMA_SQL } from './store-rows.js';
import { SCHEDULER_SCHEMA_VERSION } from './store-schema.js';

const dirs: { remove: () => void }[] = [];
const stores: SchedulerStore[] = [];

function openStore(): { store: SchedulerStore; dbPath: string } {
  const dir = tempDir();
  dirs.push(dir);
  const dbPath = join(dir.path, 'nested', 'scheduler.db');
  const store = new SchedulerStore({ dbPath });
  stores.push(store);
  return { store, dbPath };
}

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) dir.remove();
});

describe('SchedulerStore', () => {
  it('expands a leading ~ to the home directory', () => {
    expect(expandHome('~/.openjarvis/scheduler.db')).toBe(
      join(homedir(), '.openjarvis/scheduler.db'),
    );
    expect(expandHome('~')).toBe(homedir());
    expect(expandHome('/tmp/~x')).toBe('/tmp/~x');
  });

  it('opens in WAL mode with synchronous=FULL and a busy timeout, creating parent folders', () => {
    const { store, dbPath } = openStore();
    store.insertTask(task('t1', 5));
    const raw = new Database(dbPath, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
    expect(store.integrityCheck()).toBe('ok');
  });

  it('keeps one row per task and scheduled time', () => {
    const { store, dbPath } = openStore();
    store.insertTask(task('t1', 0));
    store.claimDue(claimOptions(0));
    const raw = new Database(dbPath);
    try {
      expect(() =>
        raw
          .prepare(
            "INSERT INTO task_runs (task_id, scheduled_ms, status) VALUES ('t1', 0, 'succeeded')",
          )
          .run(),
      ).toThrow(/UNIQUE/);
    } finally {
      raw.close();
    }
  });
});

describe('SchedulerStore schema versions', () => {
  it('upgrades a version-1 database in place: its tasks become person tasks and keep running', () => {
    const dir = tempDir();
    dirs.push(dir);
    const dbPath = join(dir.path, 'scheduler.db');
    const old = new Database(dbPath);
    old.exec(SCHEMA_SQL); // the tables as the previous version wrote them (user_version 0)
    old
      .prepare(
        `INSERT INTO scheduled_tasks (id, prompt, schedule_type, schedule_value, next_run_ms, tools, created_ms)
         VALUES ('old', 'legacy', 'interval', '60', 60000, 'web_search', 0)`,
      )
      .run();
    old.close();
    const store = new SchedulerStore({ dbPath });
    stores.push(store);
    expect(store.getTask('old')).toMatchObject({
      prompt: 'legacy',
      tools: 'web_search',
      createdBy: 'person',
      allowedTools: undefined,
    });
    expect(store.claimDue(claimOptions(60_000)).map((claim) => claim.task.id)).toEqual(['old']);
    store.insertTask(
      task('new', 5, { createdBy: 'agent', allowedTools: ['think'], tools: 'think' }),
    );
    expect(store.getTask('new')).toMatchObject({ createdBy: 'agent', allowedTools: ['think'] });
    const raw = new Database(dbPath, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEDULER_SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('refuses a database written by a newer version, leaving it as it is', () => {
    const { store, dbPath } = openStore();
    store.close();
    const raw = new Database(dbPath);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => new SchedulerStore({ dbPath })).toThrow(
      `cannot use ${dbPath} as the scheduler database: it has schema version 99, and this version of OpenJarvis reads up to ${SCHEDULER_SCHEMA_VERSION}; upgrade OpenJarvis or choose another db_path; the file was left as it is`,
    );
  });
});

describeSchedulerStoreContract('SQLite', async () => {
  const { store } = openStore();
  return new SqliteSchedulerBackend(store);
});
