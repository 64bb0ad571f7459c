// The contract every SessionStore keeps, run against each backend by its own test file (not run alone).
import { expect, it } from 'vitest';
import type { Message, TokenUsage } from '../core/index.js';
import type { SessionStore } from './session-store.js';
import type { NewSessionTurn } from './session-types.js';
import { MISSING_RESULT_TEXT } from './tool-pairing.js';

/** A fresh, empty store per test; `nowMs` is the wall clock it was built with (moved by the test). */
export interface ContractStore {
  readonly store: SessionStore;
  readonly clock: { nowMs: number };
}

const USAGE: TokenUsage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

/** A completed turn: the user's text and the answer, stamped at `atMs`. */
export function simpleTurn(user: string, answer: string, atMs = 1_000): NewSessionTurn {
  return {
    messages: [
      { role: 'user', content: user },
      { role: 'assistant', content: answer },
    ],
    agent: 'simple',
    model: 'm',
    engine: 'scripted',
    usage: USAGE,
    status: 'completed',
    startedMs: atMs,
    endedMs: atMs + 10,
  };
}

/** What `open` gets from the running test: a backend that cannot run here skips it with the reason. */
export interface ContractTest {
  skip(note?: string): never;
}

/** Registers the contract's tests for the backend `open` builds. */
export function sessionStoreContract(open: (test: ContractTest) => Promise<ContractStore>): void {
  const withStore =
    (test: (context: ContractStore) => Promise<void>) => async (ctx: ContractTest) => {
      const context = await open(ctx);
      try {
        await test(context);
      } finally {
        await context.store.close();
      }
    };

  it(
    'creates sessions with unique ids, finds them by id or name, lists the latest first',
    withStore(async ({ store, clock }) => {
      const first = await store.create();
      clock.nowMs += 1_000;
      const named = await store.create({ name: 'work' });
      expect(first.id).toMatch(/^ses_[0-9a-f]{16}$/);
      expect(named.id).not.toBe(first.id);
      expect(named).toMatchObject({ name: 'work', turnCount: 0, title: '', summary: undefined });
      expect((await store.find('work'))?.id).toBe(named.id);
      expect((await store.find(first.id))?.id).toBe(first.id);
      expect(await store.find('nothing')).toBeUndefined();
      expect((await store.list()).map((s) => s.id)).toEqual([named.id, first.id]);
      expect((await store.latest())?.id).toBe(named.id);
      await store.appendTurn(first.id, simpleTurn('hello', 'hi', clock.nowMs + 5_000));
      expect((await store.latest())?.id).toBe(first.id);
      expect(await store.list({ limit: 1 })).toHaveLength(1);
    }),
  );

  it(
    'refuses a taken or malformed name, saying what is accepted',
    withStore(async ({ store }) => {
      await store.create({ name: 'work' });
      await expect(store.create({ name: 'work' })).rejects.toThrow(/already exists/);
      await expect(store.create({ name: 'has space' })).rejects.toThrow(/letters, digits/);
      await expect(store.create({ name: 'ses_0123456789abcdef' })).rejects.toThrow(/ses_/);
      await expect(store.create({ name: 'x'.repeat(65) })).rejects.toThrow(/1-64/);
    }),
  );

  it(
    'renames and removes sessions; an unknown id is a session_not_found error',
    withStore(async ({ store }) => {
      const session = await store.create({ name: 'a' });
      const other = await store.create({ name: 'b' });
      expect((await store.rename(session.id, 'c')).name).toBe('c');
      await expect(store.rename(session.id, 'b')).rejects.toThrow(/already exists/);
      expect((await store.rename(session.id, undefined)).name).toBeUndefined();
      await store.appendTurn(session.id, simpleTurn('q', 'a'));
      expect(await store.remove(session.id)).toBe(true);
      expect(await store.remove(session.id)).toBe(false);
      expect(await store.find(session.id)).toBeUndefined();
      await expect(store.turns(session.id)).rejects.toMatchObject({ code: 'session_not_found' });
      await expect(store.appendTurn('ses_ffffffffffffffff', simpleTurn('q', 'a'))).rejects.toThrow(
        /no session/,
      );
      expect((await store.find('b'))?.id).toBe(other.id);
    }),
  );

  it(
    'keeps turns in order with agent, model, engine, usage, status and times; the title is the first question',
    withStore(async ({ store }) => {
      const session = await store.create();
      const first = await store.appendTurn(
        session.id,
        simpleTurn('  What   is 2+2?\n', '4', 2_000),
      );
      const second = await store.appendTurn(session.id, {
        ...simpleTurn('and 3+3?', '', 3_000),
        status: 'cancelled',
      });
      expect([first.seq, second.seq]).toEqual([1, 2]);
      const turns = await store.turns(session.id);
      expect(turns).toEqual([first, second]);
      expect(turns[0]).toMatchObject({
        agent: 'simple',
        model: 'm',
        engine: 'scripted',
        usage: USAGE,
        status: 'completed',
        startedMs: 2_000,
        endedMs: 2_010,
      });
      expect(await store.turns(session.id, { afterSeq: 1 })).toEqual([second]);
      const info = await store.find(session.id);
      expect(info).toMatchObject({ turnCount: 2, title: 'What is 2+2?', updatedMs: 3_010 });
    }),
  );

  it(
    'stores tool calls paired with their results, filling a missing result and dropping strays',
    withStore(async ({ store }) => {
      const session = await store.create();
      const messages: Message[] = [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
            { id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
          ],
        },
        { role: 'tool', content: 'rain', toolCallId: 'c1', name: 'weather' },
        { role: 'tool', content: 'stray', toolCallId: 'zz' },
      ];
      const turn = await store.appendTurn(session.id, {
        ...simpleTurn('', ''),
        messages,
        status: 'cancelled',
      });
      const stored = (await store.turns(session.id))[0];
      expect(stored?.messages).toEqual(turn.messages);
      expect(stored?.messages.map((m) => [m.role, m.toolCallId ?? '', m.content])).toEqual([
        ['user', '', 'weather?'],
        ['assistant', '', ''],
        ['tool', 'c1', 'rain'],
        ['tool', 'c2', MISSING_RESULT_TEXT],
      ]);
      expect(stored?.messages[1]?.toolCalls?.[1]).toEqual({
        id: 'c2',
        name: 'weather',
        arguments: '{"city":"Rome"}',
      });
    }),
  );

  it(
    'refuses a turn without messages or with a malformed message, storing nothing',
    withStore(async ({ store }) => {
      const session = await store.create();
      await expect(
        store.appendTurn(session.id, { ...simpleTurn('q', 'a'), messages: [] }),
      ).rejects.toThrow(/at least one message/);
      const bad = [{ role: 'robot', content: 'x' }] as unknown as Message[];
      await expect(
        store.appendTurn(session.id, { ...simpleTurn('q', 'a'), messages: bad }),
      ).rejects.toThrow(/role "robot"; accepted: system, user, assistant, tool/);
      expect(await store.turns(session.id)).toEqual([]);
      expect((await store.find(session.id))?.turnCount).toBe(0);
    }),
  );

  it(
    'keeps the summary that covers the most turns',
    withStore(async ({ store }) => {
      const session = await store.create();
      await store.setSummary(session.id, { text: 'two turns', throughSeq: 2, updatedMs: 5 });
      await store.setSummary(session.id, { text: 'older', throughSeq: 1, updatedMs: 6 });
      expect((await store.find(session.id))?.summary).toEqual({
        text: 'two turns',
        throughSeq: 2,
        updatedMs: 5,
      });
      await store.setSummary(session.id, { text: 'four', throughSeq: 4, updatedMs: 7 });
      expect((await store.find(session.id))?.summary?.text).toBe('four');
    }),
  );

  it(
    'keeps every turn of concurrent appends to one session, each with its own seq',
    withStore(async ({ store }) => {
      const session = await store.create();
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.appendTurn(session.id, simpleTurn(`q${index}`, `a${index}`)),
        ),
      );
      const turns = await store.turns(session.id);
      expect(turns.map((turn) => turn.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(new Set(turns.map((turn) => turn.messages[0]?.content)).size).toBe(20);
    }),
  );

  it(
    'fails clearly once closed',
    withStore(async ({ store }) => {
      await store.close();
      await store.close();
      await expect(store.list()).rejects.toMatchObject({ code: 'sessions_store_closed' });
    }),
  );
}
