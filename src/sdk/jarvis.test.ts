import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentStreamEvent, createRegistries, EventBus, JarvisError } from '../core/index.js';
import { assistantReply, ScriptedEngine, toolCallReply } from '../testing/index.js';
import { defineTool } from '../tools/index.js';
import { Jarvis, type JarvisOptions } from './jarvis.js';

let home: string;
let opened: Jarvis[];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-sdk-'));
  opened = [];
});

afterEach(async () => {
  await Promise.all(opened.map((jarvis) => jarvis.close()));
  await rm(home, { recursive: true, force: true });
});

function jarvisWith(engine: ScriptedEngine, options: Partial<JarvisOptions> = {}): Jarvis {
  const jarvis = new Jarvis({
    engine,
    env: { OPENJARVIS_HOME: home },
    cwd: home,
    registries: createRegistries(),
    ...options,
  });
  opened.push(jarvis);
  return jarvis;
}

describe('Jarvis.ask and askFull', () => {
  it('answers with the configured default agent', async () => {
    const engine = new ScriptedEngine([assistantReply('Paris')]);
    expect(await jarvisWith(engine).ask('What is the capital of France?')).toBe('Paris');
  });

  it('returns the whole run: turns, tool results, usage, model, engine, agent, metadata', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'calculator', arguments: { expression: '340*0.15' } }),
      assistantReply('51', { usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 } }),
    ]);
    const full = await jarvisWith(engine).askFull('What is 15% of 340?', {
      tools: ['calculator'],
    });
    expect(full).toMatchObject({ content: '51', turns: 2, model: 'scripted', engine: 'scripted' });
    expect(full.agent).toBe('orchestrator');
    expect(full.toolResults.map((result) => [result.toolName, result.content])).toEqual([
      ['calculator', '51.0'],
    ]);
    expect(full.usage.completionTokens).toBeGreaterThanOrEqual(2);
    expect(full.metadata).toHaveProperty('usage');
  });

  it('keeps max_turns_exceeded in metadata', async () => {
    const call = toolCallReply({ name: 'think', arguments: { thought: 'hmm' } });
    const engine = new ScriptedEngine([call]);
    const full = await jarvisWith(engine).askFull('loop', { tools: ['think'], maxTurns: 1 });
    expect(full.metadata.max_turns_exceeded).toBe(true);
  });

  it('accepts tool objects next to names', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'shout', arguments: { text: 'hi' } }),
      assistantReply('done'),
    ]);
    const shout = defineTool({
      name: 'shout',
      description: 'Upper-cases text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: ({ text }) => String(text).toUpperCase(),
    });
    const full = await jarvisWith(engine).askFull('shout hi', { tools: [shout, 'think'] });
    expect(full.toolResults[0]?.content).toBe('HI');
  });

  it('refuses an empty question and an unknown agent with clear errors', async () => {
    const jarvis = jarvisWith(new ScriptedEngine());
    await expect(jarvis.ask('  ')).rejects.toThrow(/question is empty/);
    const error = await jarvis.ask('x', { agent: 'nope' }).catch((caught: unknown) => caught);
    expect(JarvisError.isInstance(error) && error.code).toBe('unknown_agent');
  });

  it('reports a bad config file with its line, and retries after it is fixed', async () => {
    const configPath = join(home, 'config.toml');
    await writeFile(configPath, '[agent]\nmax_turns = 0\n');
    const jarvis = jarvisWith(new ScriptedEngine([assistantReply('ok')]), { configPath });
    await expect(jarvis.ask('x')).rejects.toThrow(/config\.toml:2.*max_turns/s);
    await writeFile(configPath, '[agent]\nmax_turns = 3\n');
    expect(await jarvis.ask('x')).toBe('ok');
  });
});

describe('Jarvis options', () => {
  it('hands every option it shares with buildSystem to the system, the clock included', async () => {
    const bus = new EventBus();
    const startMs = Date.UTC(2040, 0, 1);
    const clock = { nowMs: () => startMs, monotonicMs: () => 0 };
    const jarvis = jarvisWith(new ScriptedEngine(), { bus, clock, model: 'named' });
    const system = await jarvis.system();
    expect(system.bus).toBe(bus);
    expect((await system.engine()).model).toBe('named');
    const task = await system
      .scheduler()
      .createTask({ prompt: 'p', scheduleType: 'interval', scheduleValue: '60' });
    expect(task.nextRunMs).toBe(startMs + 60_000);
  });
});

describe('Jarvis.stream', () => {
  it('yields text deltas and tool events, ending with the result', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'calculator', arguments: { expression: '2+2' } }),
      assistantReply('It is 4'),
    ]);
    const events: AgentStreamEvent[] = [];
    for await (const event of jarvisWith(engine).stream('2+2?', { tools: ['calculator'] }))
      events.push(event);
    const types = events.map((event) => event.type);
    expect(types).toContain('tool_call_end');
    expect(types).toContain('text_delta');
    const last = events.at(-1);
    expect(last?.type === 'result' && last.result.content).toBe('It is 4');
  });
});

describe('Jarvis.memory', () => {
  it('indexes a folder, searches it, counts and clears it', async () => {
    const docs = join(home, 'docs');
    await mkdir(docs);
    await writeFile(join(docs, 'a.md'), '# Deploy\n\nThe deploy key rotates every Friday.');
    await writeFile(join(docs, 'b.txt'), 'Lunch is at noon.');
    const jarvis = jarvisWith(new ScriptedEngine());
    const summary = await jarvis.memory.index(docs);
    expect(summary).toMatchObject({ files: 2 });
    const [best] = await jarvis.memory.search('deploy key');
    expect(best?.source).toBe(join(docs, 'a.md'));
    expect(await jarvis.memory.stats()).toMatchObject({ backend: 'sqlite', count: 2 });
    await jarvis.memory.clear();
    expect((await jarvis.memory.stats()).count).toBe(0);
  });
});

describe('Jarvis.close', () => {
  it('is idempotent and refuses questions afterwards', async () => {
    const jarvis = jarvisWith(new ScriptedEngine([assistantReply('x')]));
    await jarvis.ask('q');
    await Promise.all([jarvis.close(), jarvis.close()]);
    await expect(jarvis.ask('q')).rejects.toThrow(/closed/);
  });
});
