import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundledScript } from '../../test/support/bundled-script.js';
import { createRegistries, EventBus, JarvisError } from '../core/index.js';
import { assistantReply, ScriptedEngine, toolCallReply } from '../testing/index.js';
import { defineTool } from '../tools/index.js';
import { configFromToml, type JarvisConfig } from './config/index.js';
import { buildSystem, type JarvisSystem, type SystemRegistries } from './system.js';

let home: string;
let systems: JarvisSystem[];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-system-'));
  systems = [];
});

afterEach(async () => {
  await Promise.all(systems.map((system) => system.close()));
  await rm(home, { recursive: true, force: true });
});

function configOf(toml = ''): JarvisConfig {
  return configFromToml(toml, join(home, 'config.toml'), { home, cwd: home, homeDir: home }).config;
}

function isolatedRegistries(): SystemRegistries {
  return createRegistries();
}

function systemWith(engine: ScriptedEngine, toml = '', bus?: EventBus): JarvisSystem {
  const system = buildSystem({
    config: configOf(toml),
    engine,
    registries: isolatedRegistries(),
    env: {},
    ...(bus === undefined ? {} : { bus }),
  });
  systems.push(system);
  return system;
}

describe('buildSystem tools', () => {
  it('refuses an unknown tool, listing the available ones', async () => {
    const system = systemWith(new ScriptedEngine());
    const error = await system.buildTools(['calculater']).catch((caught: unknown) => caught);
    expect(JarvisError.isInstance(error) && error.code).toBe('unknown_tool');
    expect((error as Error).message).toMatch(/Unknown tool 'calculater'\. Available: .*calculator/);
  });

  it('gives file_read the configured allowed directories', async () => {
    await writeFile(join(home, 'note.txt'), 'inside');
    const system = systemWith(
      new ScriptedEngine(),
      `[tools.file_read]\nallowed_dirs = ["${home}"]`,
    );
    const [fileRead] = await system.buildTools(['file_read']);
    expect((await fileRead?.execute({ path: join(home, 'note.txt') }))?.content).toContain(
      'inside',
    );
    const outside = await fileRead?.execute({ path: '/etc/hostname' });
    expect(outside?.success).toBe(false);
  });

  it('backs the scheduler tools with the live scheduler', async () => {
    const system = systemWith(new ScriptedEngine());
    const [schedule] = await system.buildTools(['schedule_task']);
    const result = await schedule?.execute({
      prompt: 'hello',
      schedule_type: 'interval',
      schedule_value: '60',
    });
    expect(result?.success).toBe(true);
    const { task_id: taskId } = JSON.parse(result?.content ?? '{}') as { task_id: string };
    expect((await system.scheduler().getTask(taskId)).prompt).toBe('hello');
  });

  it('gives llm the engine and model of the run', async () => {
    const engine = new ScriptedEngine([assistantReply('sub-answer')]);
    const system = systemWith(engine);
    const resolved = await system.engine();
    const [llm] = await system.buildTools(['llm'], resolved);
    expect((await llm?.execute({ prompt: 'q' }))?.content).toBe('sub-answer');
    expect(engine.calls[0]?.options.model).toBe('scripted');
  });

  it('uses registered custom tools and refuses two tools of one name', async () => {
    const system = systemWith(new ScriptedEngine());
    const shout = defineTool({
      name: 'shout',
      description: 'Upper-cases text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: ({ text }) => String(text).toUpperCase(),
    });
    system.registries.tools.registerValue('shout', () => shout);
    const [tool] = await system.buildTools(['shout']);
    expect((await tool?.execute({ text: 'hi' }))?.content).toBe('HI');
    await expect(system.buildTools(['shout', shout])).rejects.toThrow(
      /Two tools are named 'shout'/,
    );
  });
});

describe('buildSystem runs', () => {
  it('runs the orchestrator when tools are given and reports engine and model', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'calculator', arguments: { expression: '340*0.15' } }),
      assistantReply('15% of 340 is 51.'),
    ]);
    const run = await systemWith(engine).run('What is 15% of 340?', { tools: ['calculator'] });
    expect(run.agentName).toBe('orchestrator');
    expect(run.result.content).toBe('15% of 340 is 51.');
    expect(run.result.toolResults[0]?.content).toBe('51.0');
    expect([run.engineKey, run.model]).toEqual(['scripted', 'scripted']);
    engine.assertAllStepsConsumed();
  });

  it('runs the configured default agent with its settings when neither agent nor tools are named', async () => {
    const engine = new ScriptedEngine([assistantReply('Paris')]);
    const toml = '[agent]\ndefault_agent = "simple"\ntemperature = 0.2\nmax_tokens = 77';
    const run = await systemWith(engine, toml).run('Capital of France?');
    expect(run.agentName).toBe('simple');
    expect(engine.calls[0]?.options).toMatchObject({ temperature: 0.2, maxTokens: 77 });
  });

  it('keeps max_turns_exceeded from the agent', async () => {
    const calc = toolCallReply({ name: 'calculator', arguments: { expression: '1+1' } });
    const engine = new ScriptedEngine([calc, calc]);
    const run = await systemWith(engine).run('loop', { tools: ['calculator'], maxTurns: 2 });
    expect(run.result.metadata.max_turns_exceeded).toBe(true);
  });

  it('refuses an unknown agent before reaching the engine', async () => {
    const engine = new ScriptedEngine();
    const error = await systemWith(engine)
      .run('x', { agent: 'orchestrater' })
      .catch((caught: unknown) => caught);
    expect((error as JarvisError).code).toBe('unknown_agent');
    expect((error as Error).message).toMatch(/Available: .*orchestrator/);
    expect(engine.calls).toHaveLength(0);
  });

  it('refuses tools with the simple agent instead of dropping them', async () => {
    const engine = new ScriptedEngine();
    await expect(
      systemWith(engine).run('x', { agent: 'simple', tools: ['calculator'] }),
    ).rejects.toThrow(/'simple' agent does not call tools/);
    expect(engine.calls).toHaveLength(0);
  });

  it('injects memory context when memory has something, and never creates a memory database to ask', async () => {
    const engine = new ScriptedEngine([assistantReply('no memory'), assistantReply('with memory')]);
    const system = systemWith(engine, '[telemetry]\nenabled = false');
    await system.run('What is the launch code?');
    expect(existsSync(system.config.memory.dbPath)).toBe(false);
    await system.memory().store('The launch code is 1234.', { source: 'notes.md' });
    await system.run('What is the launch code?');
    expect(engine.calls[0]?.messages.map((message) => message.role)).toEqual(['user']);
    const injected = engine.calls[1]?.messages[0];
    expect(injected?.role).toBe('system');
    expect(injected?.content).toContain('The launch code is 1234.');
  });

  it('records telemetry when enabled and not when disabled', async () => {
    const on = systemWith(new ScriptedEngine([assistantReply('a')]));
    await on.run('q');
    expect(await on.telemetry().recent()).toHaveLength(1);
    const off = systemWith(
      new ScriptedEngine([assistantReply('b')]),
      `[telemetry]\nenabled = false\ndb_path = "${join(home, 'off.db')}"`,
    );
    await off.run('q');
    expect(existsSync(join(home, 'off.db'))).toBe(false);
  });

  it('runs a scheduled task through its agent and tools', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'calculator', arguments: { expression: '6*7' } }),
      assistantReply('42'),
    ]);
    const bus = new EventBus({ recordHistory: true });
    const system = systemWith(engine, '', bus);
    const scheduler = system.scheduler();
    const task = await scheduler.createTask({
      prompt: 'six times seven',
      scheduleType: 'interval',
      scheduleValue: '3600',
      tools: 'calculator',
    });
    const run = await scheduler.runNow(task.id);
    expect(run.success).toBe(true);
    expect(run.result).toBe('42');
    expect(engine.calls[0]?.options.tools?.map((tool) => tool.function.name)).toEqual([
      'calculator',
    ]);
  });
});

const REMOTE_FIXTURE = fileURLToPath(new URL('../mcp/remote-server.fixture.ts', import.meta.url));

describe('buildSystem MCP tools', () => {
  /** The fixture server bundled to run with plain `node` (a start under tsx costs three times the CPU). */
  let remoteScript = '';
  beforeAll(async () => {
    remoteScript = await bundledScript(REMOTE_FIXTURE);
  });
  const mcpToml = () =>
    `[[mcp.servers]]\nname = "remote"\ncommand = ${JSON.stringify(process.execPath)}\n` +
    `args = [${JSON.stringify(remoteScript)}]\n`;

  it('runs an agent that calls a tool of a configured MCP server, and closes the server with the system', async () => {
    const engine = new ScriptedEngine([
      toolCallReply({ name: 'remote.add', arguments: { a: 2, b: 40 } }),
      assistantReply('2 + 40 = 42'),
    ]);
    const system = systemWith(engine, mcpToml());
    const run = await system.run('add 2 and 40', { tools: ['remote.add', 'calculator'] });
    expect(run.result.toolResults[0]).toMatchObject({ toolName: 'remote.add', content: '42' });
    expect((await system.mcpTools()).tools.map((tool) => tool.spec.name)).toContain('remote.echo');
    await system.close();
    expect(() => system.mcp()).toThrow(/closed/);
  }, 30_000);

  it('names the server when it does not offer a tool', async () => {
    const system = systemWith(new ScriptedEngine(), mcpToml());
    await expect(system.buildTools(['remote.nope'])).rejects.toThrow(
      /Unknown tool 'remote\.nope': MCP server 'remote' does not offer it/,
    );
  }, 30_000);
});

describe('buildSystem engine choice', () => {
  it('uses an engine a user registered, by key', async () => {
    const registries = isolatedRegistries();
    const engine = new ScriptedEngine([assistantReply('from my engine')], { engineId: 'mine' });
    registries.engines.registerValue('mine', () => engine);
    const system = buildSystem({ config: configOf(), engineKey: 'mine', registries, env: {} });
    systems.push(system);
    const run = await system.run('hi');
    expect([run.result.content, run.engineKey]).toEqual(['from my engine', 'mine']);
  });

  it('refuses an unknown engine key, listing the registered ones', async () => {
    const system = buildSystem({
      config: configOf(),
      engineKey: 'olama',
      registries: isolatedRegistries(),
      env: {},
    });
    systems.push(system);
    const error = await system.run('hi').catch((caught: unknown) => caught);
    expect((error as JarvisError).code).toBe('unknown_engine');
    expect((error as Error).message).toMatch(/Unknown engine 'olama'\. Available: ollama, vllm/);
  });

  it('refuses an unknown tool before reaching for the engine', async () => {
    const system = buildSystem({
      config: configOf(),
      engineKey: 'ollama',
      baseUrl: 'http://127.0.0.1:9',
      registries: isolatedRegistries(),
      env: {},
    });
    systems.push(system);
    const error = await system
      .run('hi', { tools: ['calculater'] })
      .catch((caught: unknown) => caught);
    expect((error as JarvisError).code).toBe('unknown_tool');
  });
});

describe('buildSystem lifecycle', () => {
  it('closes once, closes the engine, and refuses use afterwards', async () => {
    const engine = new ScriptedEngine([assistantReply('x')]);
    const system = systemWith(engine);
    await system.run('q');
    await Promise.all([system.close(), system.close()]);
    await system.close();
    expect(() => system.memory()).toThrow(/closed/);
    await expect(system.run('again')).rejects.toThrow(/closed/);
  });
});
