import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledScript } from '../../test/support/bundled-script.js';
import { sessionStoreContract, simpleTurn } from './session-store-contract.case.test.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

const WRITER = fileURLToPath(new URL('./session-writer.case.test.ts', import.meta.url));
const folders: string[] = [];
const children: ChildProcess[] = [];
/** The writer bundled to run with plain `node` (a start under tsx costs three times the CPU). */
let writerScript = '';

beforeAll(async () => {
  writerScript = await bundledScript(WRITER);
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'jarvis-sessions-'));
  folders.push(folder);
  return folder;
}

describe('SqliteSessionStore: the session store contract', () => {
  sessionStoreContract(async () => {
    const clock = { nowMs: 1_000 };
    const store = new SqliteSessionStore({
      dbPath: join(tempFolder(), 'sessions.db'),
      clock: { nowMs: () => clock.nowMs, monotonicMs: () => clock.nowMs },
    });
    return { store, clock };
  });
});

/** Starts a writer process; resolves once it has opened the store. */
function startWriter(dbPath: string, sessionId: string, label: string, count: number) {
  const child = spawn(process.execPath, [writerScript, dbPath, sessionId, label, `${count}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  let errors = '';
  child.stdout?.on('data', (data: Buffer) => {
    output += data.toString();
  });
  child.stderr?.on('data', (data: Buffer) => {
    errors += data.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const wrote = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if ((output.match(/^wrote /gm) ?? []).length >= n) resolve();
      };
      child.stdout?.on('data', check);
      child.on('exit', () => reject(new Error(`writer ended early: ${errors}`)));
      check();
    });
  return { child, exited, wrote, output: () => output, errors: () => errors };
}

describe('SqliteSessionStore across processes', () => {
  it('two processes appending to one session at once lose nothing', async () => {
    const dbPath = join(tempFolder(), 'sessions.db');
    const setup = new SqliteSessionStore({ dbPath });
    const session = await setup.create({ name: 'shared' });
    const a = startWriter(dbPath, session.id, 'a', 60);
    const b = startWriter(dbPath, session.id, 'b', 60);
    expect(await a.exited, a.errors()).toBe(0);
    expect(await b.exited, b.errors()).toBe(0);
    const turns = await setup.turns(session.id);
    expect(turns.map((turn) => turn.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    const labels = turns.map((turn) => turn.messages[0]?.content.split(' ')[0]);
    expect(new Set(labels).size).toBe(120);
    expect((await setup.find('shared'))?.turnCount).toBe(120);
    await setup.close();
  }, 60_000);

  it('a process killed while writing turns leaves whole turns only, and the next turn follows on', async () => {
    const dbPath = join(tempFolder(), 'sessions.db');
    const setup = new SqliteSessionStore({ dbPath });
    const session = await setup.create();
    await setup.close();
    const writer = startWriter(dbPath, session.id, 'k', 100_000);
    await writer.wrote(25);
    writer.child.kill('SIGKILL');
    await writer.exited;
    const store = new SqliteSessionStore({ dbPath });
    const turns = await store.turns(session.id);
    const reported = (writer.output().match(/^wrote /gm) ?? []).length;
    // Every turn the writer saw committed is there; at most the one in flight beyond it.
    expect(turns.length).toBeGreaterThanOrEqual(reported);
    expect(turns.length).toBeLessThanOrEqual(reported + 1);
    for (const [index, turn] of turns.entries()) {
      expect(turn.seq).toBe(index + 1);
      expect(turn.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    }
    const next = await store.appendTurn(session.id, simpleTurn('after the crash', 'fine'));
    expect(next.seq).toBe(turns.length + 1);
    expect((await store.find(session.id))?.turnCount).toBe(turns.length + 1);
    await store.close();
  }, 60_000);
});

describe('SqliteSessionStore: files it must not use', () => {
  it('refuses a database of another program, leaving it as it was', () => {
    const dbPath = join(tempFolder(), 'other.db');
    const other = new Database(dbPath);
    other.exec('CREATE TABLE notes (text TEXT)');
    other.close();
    expect(() => new SqliteSessionStore({ dbPath })).toThrow(
      /not an OpenJarvis sessions database \(it holds the tables notes\)/,
    );
    const again = new Database(dbPath);
    expect(again.prepare('SELECT name FROM sqlite_schema').all()).toEqual([{ name: 'notes' }]);
    again.close();
  });

  it('refuses a database written by a newer version', async () => {
    const dbPath = join(tempFolder(), 'sessions.db');
    await new SqliteSessionStore({ dbPath }).close();
    const raw = new Database(dbPath);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => new SqliteSessionStore({ dbPath })).toThrow(
      /schema version 99.*upgrade OpenJarvis/,
    );
  });

  it('refuses a file that is not SQLite with the sessions_database_unreadable code', () => {
    const dbPath = join(tempFolder(), 'junk.db');
    writeFileSync(
      dbPath,
      'this is not a database, just text that is long enough to be a header...',
    );
    expect(() => new SqliteSessionStore({ dbPath })).toThrow(
      expect.objectContaining({ code: 'sessions_database_unreadable' }),
    );
  });

  it('names a turn whose stored messages were damaged instead of returning garbage', async () => {
    const dbPath = join(tempFolder(), 'sessions.db');
    const store = new SqliteSessionStore({ dbPath });
    const session = await store.create();
    await store.appendTurn(session.id, simpleTurn('q', 'a'));
    const raw = new Database(dbPath);
    raw.prepare('UPDATE session_turns SET messages = \'{"not": "a list"}\'').run();
    raw.close();
    await expect(store.turns(session.id)).rejects.toThrow(
      new RegExp(
        `turn 1 of session ${session.id} cannot be read \\(its messages are not a list\\)`,
      ),
    );
    await store.close();
  });
});
