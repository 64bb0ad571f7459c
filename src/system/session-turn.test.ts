import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistries, type InferenceEngine, type Message } from '../core/index.js';
import { assistantReply, ScriptedEngine, toolCallReply } from '../testing/index.js';
import { configFromToml } from './config/index.js';
import { buildSystem, type JarvisSystem } from './system.js';

let home = '';
const systems: JarvisSystem[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-session-turn-'));
});

afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.close()));
  await rm(home, { recursive: true, force: true });
});

function systemWith(engine: InferenceEngine, env: Record<string, string> = {}): JarvisSystem {
  const { config } = configFromToml('', join(home, 'config.toml'), {
    home,
    cwd: home,
    homeDir: home,
  });
  const system = buildSystem({
    config,
    engine,
    registries: createRegistries(),
    env,
  });
  systems.push(system);
  return system;
}

describe('runs in a session', () => {
  it('sends the earlier turns before the question and stores each turn with its tool calls paired', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'calculator', arguments: { expression: '2+2' } }),
      assistantReply('It is 4.'),
      assistantReply('You asked about 2+2.'),
    ]);
    const system = systemWith(engine);
    const session = await system.openSession('maths');
    const first = await system.runInSession(session.id, 'What is 2+2?', { tools: ['calculator'] });
    expect(first.result.content).toBe('It is 4.');
    expect(first.turn.seq).toBe(1);
    const second = await system.runInSession(session.id, 'What did I ask?', { agent: 'simple' });
    expect(second.result.content).toBe('You asked about 2+2.');
    const sent = engine.calls[2]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[0]?.content).toBe('What is 2+2?');
    expect(sent.at(-1)?.content).toBe('What did I ask?');
    const turns = await system.sessions().turns(session.id);
    expect(turns.map((t) => [t.seq, t.agent, t.engine, t.status])).toEqual([
      [1, 'orchestrator', 'scripted', 'completed'],
      [2, 'simple', 'scripted', 'completed'],
    ]);
    expect((await system.openSession('maths')).turnCount).toBe(2);
  });

  it('stores a failed turn as failed, and the next turn goes on without it', async () => {
    const engine = new ScriptedEngine([
      { type: 'error', error: new Error('engine down') },
      assistantReply('back'),
    ]);
    const system = systemWith(engine);
    const session = await system.openSession();
    await expect(system.runInSession(session.id, 'first', { agent: 'simple' })).rejects.toThrow();
    await system.runInSession(session.id, 'second', { agent: 'simple' });
    expect(engine.calls[1]?.messages.map((m) => m.content)).toEqual(['second']);
    const turns = await system.sessions().turns(session.id);
    expect(turns.map((t) => t.status)).toEqual(['failed', 'completed']);
  });

  it('streams a turn and stores it before the result event', async () => {
    const engine = new ScriptedEngine([assistantReply('streamed')]);
    const system = systemWith(engine);
    const session = await system.openSession();
    const seen: string[] = [];
    for await (const event of system.streamInSession(session.id, 'hi', { agent: 'simple' })) {
      if (event.type === 'result') {
        seen.push(`result after ${(await system.sessions().turns(session.id)).length} stored`);
      }
    }
    expect(seen).toEqual(['result after 1 stored']);
  });

  it('keeps secrets out of the stored turn', async () => {
    const engine = new ScriptedEngine([assistantReply('your key is sk-secretvalue1234567890')]);
    const system = systemWith(engine, { OPENAI_API_KEY: 'sk-secretvalue1234567890' });
    const session = await system.openSession();
    await system.runInSession(session.id, 'what is my key?', { agent: 'simple' });
    const [turn] = await system.sessions().turns(session.id);
    expect(JSON.stringify(turn?.messages)).not.toContain('sk-secretvalue1234567890');
  });

  it('refuses an unknown session id, and starts a session for a new name', async () => {
    const system = systemWith(new ScriptedEngine());
    await expect(system.openSession('ses_0000000000000000')).rejects.toMatchObject({
      code: 'session_not_found',
    });
    const named = await system.openSession('fresh');
    expect(named.name).toBe('fresh');
    expect((await system.openSession('fresh')).id).toBe(named.id);
  });

  it("fits the history into the engine's context, counted with the engine's tokenizer, folding old turns", async () => {
    const engine = new ScriptedEngine([
      assistantReply('first answer'),
      assistantReply('They talked about the first question.'),
      assistantReply('second answer'),
    ]);
    const counted: number[] = [];
    // An engine with a 1,024-token context whose tokenizer makes two characters a token (and 4 per message).
    const counting: InferenceEngine = {
      engineId: engine.engineId,
      generate: (messages, options) => engine.generate(messages, options),
      stream: (messages, options) => engine.stream(messages, options),
      listModels: () => engine.listModels(),
      health: () => engine.health(),
      close: () => engine.close(),
      contextTokens: async () => 1024,
      countTokens: async (messages: readonly Message[]) => {
        counted.push(messages.length);
        return messages.reduce((sum, m) => sum + Math.ceil(m.content.length / 2) + 4, 0);
      },
    };
    const system = systemWith(counting);
    const session = await system.openSession();
    const padding = ` ${'x'.repeat(900)}`;
    await system.runInSession(session.id, `first question${padding}`, {
      agent: 'simple',
      maxTokens: 200,
    });
    const second = await system.runInSession(session.id, `second question${padding}`, {
      agent: 'simple',
      maxTokens: 200,
    });
    expect(counted.length).toBeGreaterThan(0);
    expect(second.history).toMatchObject({
      contextTokens: 1024,
      keptTurns: 0,
      summaryUpdated: true,
    });
    // The summary was asked for between the two answers, without tools, and went along with the question.
    expect(engine.calls[1]?.options.tools ?? []).toEqual([]);
    const sent = engine.calls[2]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent[0]?.content).toContain('They talked about the first question.');
    expect((await system.sessions().find(session.id))?.summary?.throughSeq).toBe(1);
  });
});
