import { beforeAll, describe, expect, it } from 'vitest';
import { AgentError, createAgentContext, EventBus } from '../core/index.js';
import { ScriptedEngine, type ScriptedEngineReply } from '../testing/index.js';
import { CalculatorTool, openSandboxSession } from '../tools/index.js';
import { MAX_TURNS_MESSAGE } from './agent-messages.js';
import { RLMAgent, type RLMAgentOptions } from './rlm.js';
import { buildRlmSystemPrompt } from './rlm-prompt.js';
import type { RlmInterpreter, RlmInterpreterFactory } from './rlm-session.js';

let sandboxReason: string | undefined;

beforeAll(async () => {
  const opened = await openSandboxSession({ lifetimeMs: 5000 });
  if (opened.ok) await opened.session.close();
  sandboxReason = opened.ok ? undefined : opened.reason;
  if (sandboxReason !== undefined && process.env.CI === 'true')
    throw new Error(`bubblewrap and python3 are required in CI: ${sandboxReason}`);
});

function setup(replies: readonly ScriptedEngineReply[], options: Partial<RLMAgentOptions> = {}) {
  const engine = new ScriptedEngine(replies);
  const opened: RlmInterpreter[] = [];
  const openInterpreter: RlmInterpreterFactory = async ({ lifetimeMs }) => {
    const result = await openSandboxSession({ lifetimeMs });
    if (result.ok) opened.push(result.session);
    return result;
  };
  const bus = new EventBus({ recordHistory: true });
  const agent = new RLMAgent({ engine, model: 'root', bus, openInterpreter, ...options });
  return { engine, agent, opened, bus };
}

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AgentError))
    throw new Error(`expected an AgentError, got ${String(error)}`);
  return error;
}

function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Without a sandbox (outside CI) every run that writes code must report the sandbox as unavailable. */
async function expectUnavailable(run: Promise<unknown>): Promise<void> {
  const error = await rejection(run);
  expect(error.code).toBe('agent_runtime_failed');
  expect(error.message).toContain('no sandboxed interpreter');
}

const py = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

describe('RLMAgent', () => {
  it('lists the helpers and an Available Tools section in its prompt', () => {
    const prompt = buildRlmSystemPrompt([new CalculatorTool()]);
    for (const part of [
      'llm_query(prompt)',
      'llm_batch(prompts)',
      'FINAL(value)',
      '## Available Tools',
      '### calculator',
    ])
      expect(prompt).toContain(part);
    expect(new RLMAgent({ engine: new ScriptedEngine(), model: 'm' }).agentId).toBe('rlm');
  });

  it('returns a reply without code as the answer, without starting an interpreter', async () => {
    const { agent, opened } = setup(['Just 4.']);
    const result = await agent.run('2+2?');
    expect(result).toMatchObject({ content: 'Just 4.', turns: 1 });
    expect(opened).toHaveLength(0);
  });

  it('keeps state across steps, reaches the engine with llm_query and ends with FINAL', async () => {
    const { engine, agent, opened } = setup([
      py("x = llm_query('Capital of France?')\nprint(len(context), x)"),
      'Paris',
      py("FINAL(x + '!')"),
    ]);
    const context = createAgentContext({ metadata: { context: 'abcdef' } });
    const run = agent.run('Where?', context);
    if (sandboxReason !== undefined) return expectUnavailable(run);
    const result = await run;
    expect(result).toMatchObject({ content: 'Paris!', turns: 2, metadata: { final: true } });
    expect(engine.calls[1]?.messages).toEqual([{ role: 'user', content: 'Capital of France?' }]);
    expect(engine.calls[1]?.options).toMatchObject({
      model: 'root',
      temperature: 0.3,
      maxTokens: 1024,
    });
    expect(engine.calls[2]?.messages.at(-1)?.content).toBe('Output:\n6 Paris\n');
    expect(result.toolResults.map((r) => [r.toolName, r.success])).toEqual([
      ['rlm_repl', true],
      ['rlm_repl', true],
    ]);
    expect(opened).toHaveLength(1);
    expect(isRunning(opened[0]?.pid)).toBe(false);
  });

  it('reports llm_query sub-calls as inference events of the sub-model', async () => {
    const { agent, bus } = setup([py("x = llm_query('Hi?')\nFINAL(x)"), 'Hello'], {
      subModel: 'small',
    });
    const run = agent.run('Greet');
    if (sandboxReason !== undefined) return expectUnavailable(run);
    expect((await run).content).toBe('Hello');
    const inferences = bus.history.filter((event) => event.type === 'inference_end');
    const data = inferences.map((event) => event.data as Readonly<Record<string, unknown>>);
    expect(data.map((entry) => [entry.model, entry.turn])).toEqual([
      ['root', 1],
      ['small', 1],
    ]);
  });

  it('supports llm_batch, memory results as context and FINAL_VAR', async () => {
    const { agent } = setup([
      py("answers = llm_batch(['a?', 'b?'])\nresult = '|'.join(answers) + '|' + context"),
      'A',
      'B',
      py("FINAL_VAR('result')"),
    ]);
    const context = createAgentContext({ memoryResults: [{ content: 'm1' }, 'm2'] });
    const run = agent.run('go', context);
    if (sandboxReason !== undefined) return expectUnavailable(run);
    expect((await run).content).toBe('A|B|m1\n\nm2');
  });

  it('feeds a traceback back and records the step as failed', async () => {
    const { engine, agent } = setup([py('1/0'), 'Division by zero.']);
    const run = agent.run('go');
    if (sandboxReason !== undefined) return expectUnavailable(run);
    const result = await run;
    expect(result.content).toBe('Division by zero.');
    expect(result.toolResults[0]).toMatchObject({
      toolName: 'rlm_repl',
      success: false,
      errorCode: 'execution_failed',
    });
    const sent = engine.calls[1]?.messages.at(-1)?.content ?? '';
    expect(sent).toMatch(/^Error:\nTraceback/);
    expect(sent).toContain('ZeroDivisionError');
  });

  it('stops a step at its timeout, then restarts the interpreter without the old state', async () => {
    const { engine, agent } = setup(
      [py('x = 1\nwhile True: pass'), py("print('x' in globals())"), 'gave up'],
      { stepTimeoutMs: 300 },
    );
    const run = agent.run('go');
    if (sandboxReason !== undefined) return expectUnavailable(run);
    const result = await run;
    expect(result.toolResults[0]).toMatchObject({ success: false, errorCode: 'timed_out' });
    expect(engine.calls[1]?.messages.at(-1)?.content).toContain('Timed out after 0.3 s');
    expect(engine.calls[2]?.messages.at(-1)?.content).toBe(
      'Note: the interpreter had been stopped and was restarted; earlier variables are lost.\nOutput:\nFalse\n',
    );
  });

  it('kills the interpreter when the run is cancelled', async () => {
    const controller = new AbortController();
    const { agent, opened } = setup([
      py("llm_query('x')\nimport time\ntime.sleep(30)"),
      () => {
        controller.abort();
        return 'ok';
      },
    ]);
    const run = agent.run('go', undefined, { signal: controller.signal });
    if (sandboxReason !== undefined) return expectUnavailable(run);
    const error = await rejection(run);
    expect(error).toMatchObject({ code: 'agent_cancelled', name: 'AbortError' });
    expect(error.partialResult.toolResults[0]).toMatchObject({
      success: false,
      errorCode: 'cancelled',
    });
    expect(opened).toHaveLength(1);
    expect(opened[0]?.alive).toBe(false);
    expect(isRunning(opened[0]?.pid)).toBe(false);
  });

  it('returns the partial answer at the turn limit', async () => {
    const { agent } = setup([py("answer['value'] = 'half'"), py('y = 2')], { maxTurns: 2 });
    const run = agent.run('go');
    if (sandboxReason !== undefined) return expectUnavailable(run);
    const result = await run;
    expect(result).toMatchObject({
      content: 'half',
      turns: 2,
      metadata: { max_turns_exceeded: true },
    });
    const none = await setup([py('y = 1')], { maxTurns: 1 }).agent.run('x');
    expect(none).toMatchObject({
      content: MAX_TURNS_MESSAGE,
      metadata: { max_turns_exceeded: true },
    });
  });

  it('ends when the code sets answer["ready"] itself', async () => {
    const { agent } = setup([py("answer['value'] = 'done'\nanswer['ready'] = True")]);
    const run = agent.run('go');
    if (sandboxReason !== undefined) return expectUnavailable(run);
    expect((await run).content).toBe('done');
  });

  it('reports the sandbox as unavailable when no interpreter can be opened', async () => {
    const engine = new ScriptedEngine([py('print(1)')]);
    const agent = new RLMAgent({
      engine,
      model: 'm',
      openInterpreter: async () => ({ ok: false, reason: 'bubblewrap not found at /nope' }),
    });
    const error = await rejection(agent.run('go'));
    expect(error.code).toBe('agent_runtime_failed');
    expect(error.message).toContain('bubblewrap not found at /nope');
  });
});
