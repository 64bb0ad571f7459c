import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SessionInfo, SqliteSessionStore } from '../sessions/index.js';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';

function capture(isTTY: boolean) {
  const stream = {
    text: '',
    isTTY,
    columns: 80,
    write(text: string) {
      stream.text += text;
    },
  };
  return stream;
}

/** An io on `home`; with `answer`, stdin and stderr are terminals and stdin holds the answer. */
function testIo(home: string, answer?: string) {
  const terminal = answer !== undefined;
  const stdin = Object.assign(new PassThrough(), { isTTY: terminal });
  if (answer !== undefined) stdin.write(answer);
  else stdin.end();
  const stdout = capture(false);
  const stderr = capture(terminal);
  const io: CliIo = {
    stdout,
    stderr,
    stdin,
    env: { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') },
    cwd: home,
    signal: new AbortController().signal,
  };
  return { io, stdout, stderr };
}

describe('jarvis sessions (in process)', () => {
  let home: string;
  let dbPath: string;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'jarvis-sessions-action-'));
    dbPath = join(home, '.openjarvis', 'sessions.db');
  });

  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  /** Stores `count` sessions of one answered turn each (the last one named `last`, folded into a summary). */
  async function seed(count: number): Promise<SessionInfo[]> {
    await mkdir(join(home, '.openjarvis'), { recursive: true });
    const store = new SqliteSessionStore({ dbPath });
    const made: SessionInfo[] = [];
    for (let index = 0; index < count; index += 1) {
      const session = await store.create(index === count - 1 ? { name: 'last' } : {});
      await store.appendTurn(session.id, {
        messages: [
          { role: 'user', content: `question ${index}` },
          { role: 'assistant', content: `answer ${index}` },
        ],
        agent: 'simple',
        model: 'm',
        engine: 'openai',
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
        status: 'completed',
        startedMs: 1000 + index,
        endedMs: 2000 + index,
      });
      made.push(session);
    }
    const last = made.at(-1);
    if (last !== undefined)
      await store.setSummary(last.id, { text: 'Folded.', throughSeq: 1, updatedMs: 5000 });
    await store.close();
    return made;
  }

  it('list on a fresh home says how to start one and creates no database; --json is []', async () => {
    const { io, stdout, stderr } = testIo(home);
    expect(await runCli(['sessions', 'list'], io)).toBe(0);
    expect(stdout.text).toBe('');
    expect(stderr.text).toMatch(/^No sessions yet\. Start one with: jarvis ask --session/);
    const json = testIo(home);
    expect(await runCli(['sessions', 'list', '--json'], json.io)).toBe(0);
    expect(JSON.parse(json.stdout.text)).toEqual([]);
    expect(existsSync(dbPath)).toBe(false);
  });

  it('list --limit keeps the most recent; the folded session is marked', async () => {
    await seed(3);
    const { io, stdout } = testIo(home);
    expect(await runCli(['sessions', 'list', '--limit', '2'], io)).toBe(0);
    const lines = stdout.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^ses_[0-9a-f]{16}\s+last\s+1 \(1 in summary\)\s+\S+\s+question 2$/);
    const json = testIo(home);
    await runCli(['sessions', 'list', '--json', '--limit', '1'], json.io);
    expect(JSON.parse(json.stdout.text)).toMatchObject([
      { name: 'last', turns: 1, summary: { text: 'Folded.', through_turn: 1 } },
    ]);
    const bad = testIo(home);
    expect(await runCli(['sessions', 'list', '--limit', '0'], bad.io)).toBe(2);
    expect(bad.stderr.text).toMatch(/--limit must be a whole number from 1/);
  });

  it('show --json prints the export document; an unknown session is exit 2 naming sessions list', async () => {
    const [first] = await seed(2);
    const shown = testIo(home);
    expect(await runCli(['sessions', 'show', first?.id ?? '', '--json'], shown.io)).toBe(0);
    const exported = testIo(home);
    expect(
      await runCli(['sessions', 'export', first?.id ?? '', '--format', 'json'], exported.io),
    ).toBe(0);
    expect(shown.stdout.text).toBe(exported.stdout.text);
    expect(JSON.parse(shown.stdout.text).turns[0].messages[1]).toEqual({
      role: 'assistant',
      content: 'answer 0',
    });
    const missing = testIo(home);
    expect(await runCli(['sessions', 'show', 'ses_0000000000000000', '--json'], missing.io)).toBe(
      2,
    );
    expect(JSON.parse(missing.stdout.text).error.message).toMatch(/`jarvis sessions list`/);
    const format = testIo(home);
    expect(await runCli(['sessions', 'export', 'last', '--format', 'pdf'], format.io)).toBe(2);
    expect(format.stderr.text).toMatch(/--format must be md or json \(got 'pdf'\)/);
  });

  it('rm asks on a terminal: no keeps it, yes deletes it', async () => {
    await seed(1);
    const no = testIo(home, 'n\n');
    expect(await runCli(['sessions', 'rm', 'last'], no.io)).toBe(0);
    expect(no.stderr.text).toMatch(
      /^Delete session ses_[0-9a-f]{16} \(last\) and its 1 turn\? \[y\/N\] Nothing was deleted\.\n$/,
    );
    const yes = testIo(home, 'y\n');
    expect(await runCli(['sessions', 'rm', 'last'], yes.io)).toBe(0);
    expect(yes.stdout.text).toMatch(
      /^Deleted session ses_[0-9a-f]{16} \(last\) and its 1 turn\.\n$/,
    );
    const gone = testIo(home);
    expect(await runCli(['sessions', 'show', 'last'], gone.io)).toBe(2);
  });

  it('rm without a terminal needs --yes and deletes nothing', async () => {
    await seed(1);
    const { io, stderr } = testIo(home);
    expect(await runCli(['sessions', 'rm', 'last'], io)).toBe(2);
    expect(stderr.text).toMatch(/there is no terminal to ask: run `jarvis sessions rm last --yes`/);
    const list = testIo(home);
    await runCli(['sessions', 'list', '--json'], list.io);
    expect(JSON.parse(list.stdout.text)).toHaveLength(1);
  });

  it('export writes Markdown to a file (relative to the folder) and says where on stderr', async () => {
    await seed(1);
    const { io, stdout, stderr } = testIo(home);
    expect(await runCli(['sessions', 'export', 'last', '-o', 'out.md'], io)).toBe(0);
    expect(stdout.text).toBe('');
    expect(stderr.text).toMatch(/^Wrote ses_[0-9a-f]{16} \(last\) \(1 turn\) to .*out\.md\n$/);
    const md = await readFile(join(home, 'out.md'), 'utf8');
    expect(md).toContain('## Summary of turns 1-1\n\nFolded.');
    expect(md).toContain('**You:**\n\nquestion 0\n\n**Jarvis:**\n\nanswer 0\n');
    const bad = testIo(home);
    expect(
      await runCli(['sessions', 'export', 'last', '-o', join(home, 'no', 'dir', 'x.md')], bad.io),
    ).toBe(1);
    expect(bad.stderr.text).toMatch(
      /^error: could not write .*x\.md: .*; check that the folder exists/,
    );
  });
});
