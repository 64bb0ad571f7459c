import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistries } from '../core/index.js';
import { assistantReply, errorReply, ScriptedEngine, toolCallReply } from '../testing/index.js';
import { Jarvis } from './jarvis.js';

let home: string;
let opened: Jarvis[];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-sdk-session-'));
  opened = [];
});

afterEach(async () => {
  await Promise.all(opened.map((jarvis) => jarvis.close()));
  await rm(home, { recursive: true, force: true });
});

function jarvisWith(engine: ScriptedEngine): Jarvis {
  const jarvis = new Jarvis({
    engine,
    env: { OPENJARVIS_HOME: home },
    cwd: home,
    registries: createRegistries(),
  });
  opened.push(jarvis);
  return jarvis;
}

describe('Jarvis.session', () => {
  it('holds a conversation: the second question goes with the first turn', async () => {
    const engine = new ScriptedEngine([
      assistantReply('Nice to meet you, Ada.'),
      assistantReply('Your name is Ada.'),
    ]);
    const chat = jarvisWith(engine).session();
    expect(await chat.ask('My name is Ada.')).toBe('Nice to meet you, Ada.');
    const second = await chat.askFull('What is my name?');
    expect(second.content).toBe('Your name is Ada.');
    expect(second.turn).toBe(2);
    expect(second.session.turnCount).toBe(2);
    expect(second.history.keptTurns).toBe(1);
    expect(engine.calls[1]?.messages.map((m) => m.content)).toEqual([
      'My name is Ada.',
      'Nice to meet you, Ada.',
      'What is my name?',
    ]);
    expect((await chat.history()).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('finds a named session again from another Jarvis (it is stored in the home folder)', async () => {
    const first = jarvisWith(new ScriptedEngine([assistantReply('noted')]));
    await first.session('notes').ask('Remember: the door code is 4711.');
    await first.close();
    const engine = new ScriptedEngine([assistantReply('4711')]);
    const again = jarvisWith(engine).session('notes');
    expect(await again.ask('What is the door code?')).toBe('4711');
    expect(engine.calls[0]?.messages[0]?.content).toBe('Remember: the door code is 4711.');
    expect((await again.info()).name).toBe('notes');
  });

  it('streams a turn, with tool calls, and keeps it', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'calculator', arguments: { expression: '340*0.15' } }),
      assistantReply('51'),
    ]);
    const chat = jarvisWith(engine).session('stream');
    const types: string[] = [];
    for await (const event of chat.stream('What is 15% of 340?', { tools: ['calculator'] })) {
      types.push(event.type);
    }
    expect(types.at(-1)).toBe('result');
    expect(types).toContain('tool_call_end');
    const [turn] = await chat.turns();
    expect(turn?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('leaves no empty session behind when the first question fails before a turn is stored', async () => {
    const jarvis = jarvisWith(new ScriptedEngine([assistantReply('Hello.')]));
    const store = (await jarvis.system()).sessions();
    for (const chat of [jarvis.session(), jarvis.session('trip')]) {
      await expect(chat.ask('Hi', { agent: 'no_such_agent' })).rejects.toThrow(/no_such_agent/);
      expect(chat.id).toBeUndefined();
      expect(await store.list()).toEqual([]);
    }
    // The next question starts the session (under its name) as if nothing had happened.
    const trip = jarvis.session('trip');
    await expect(trip.ask('Hi', { agent: 'no_such_agent' })).rejects.toThrow();
    expect(await trip.ask('Hi')).toBe('Hello.');
    expect(await store.list()).toEqual([
      expect.objectContaining({ id: trip.id, name: 'trip', turnCount: 1 }),
    ]);
  });

  it('keeps the session of a run that failed with its turn stored, and sessions it found', async () => {
    const jarvis = jarvisWith(
      new ScriptedEngine([errorReply('engine_unavailable'), errorReply('engine_unavailable')]),
    );
    const store = (await jarvis.system()).sessions();
    const failed = jarvis.session();
    await expect(failed.ask('Hi')).rejects.toThrow();
    expect((await store.find(String(failed.id)))?.turnCount).toBe(1);
    const existing = await store.create({ name: 'kept' });
    await expect(jarvis.session('kept').ask('Hi', { agent: 'no_such_agent' })).rejects.toThrow();
    expect(await store.find('kept')).toMatchObject({ id: existing.id, turnCount: 0 });
  });

  it('refuses an empty question before starting a session', async () => {
    const jarvis = jarvisWith(new ScriptedEngine());
    await expect(jarvis.session('x').ask('  ')).rejects.toThrow(/question is empty/);
    expect(await (await jarvis.system()).sessions().list()).toEqual([]);
  });
});
