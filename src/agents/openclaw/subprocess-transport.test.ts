import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type OpenClawRuntimeBehaviour,
  writeOpenClawRuntimeScript,
} from '../../testing/openclaw-runtime.js';
import { createOpenClawMessage, OpenClawProtocolError } from './protocol.js';
import { SubprocessTransport, type SubprocessTransportOptions } from './subprocess-transport.js';
import { OpenClawTransportError } from './transport.js';

let directory = '';
const transports: SubprocessTransport[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'openclaw-subprocess-'));
});

/** Grandchildren the fixtures reported; killed by pid after each test in case a test failed. */
const grandchildren: number[] = [];
let forkingCount = 0;

afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  for (const pid of grandchildren.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function open(
  behaviour: OpenClawRuntimeBehaviour,
  options: Partial<SubprocessTransportOptions> = {},
): Promise<SubprocessTransport> {
  const scriptPath = await writeOpenClawRuntimeScript(directory, behaviour);
  const transport = new SubprocessTransport({ scriptPath, timeoutMs: 5_000, ...options });
  transports.push(transport);
  return transport;
}

const query = (content = 'hello') => createOpenClawMessage({ type: 'query', content });

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Running and not a zombie (an init that does not reap leaves killed orphans as zombies). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** How the forking fixture runtime behaves. */
interface ForkingRuntime {
  readonly runtimeIgnoresSigterm: boolean;
  readonly grandchildIgnoresSigterm: boolean;
  /** Exit with code 3 on the first query (after the health check). */
  readonly crashOnQuery?: boolean;
}

/**
 * A runtime that forks a grandchild (which reports when its signal handling is set up), writes the
 * grandchild's pid to a file, and answers every line with `health_ok` (or exits, when told to crash).
 */
async function openForking(behaviour: ForkingRuntime): Promise<SubprocessTransport> {
  forkingCount += 1;
  const name = `forking-${forkingCount}`;
  const pidFile = join(directory, `${name}.pid`);
  const scriptPath = join(directory, `${name}.mjs`);
  const grandchild = `${behaviour.grandchildIgnoresSigterm ? "process.on('SIGTERM', () => {});" : ''} setInterval(() => {}, 1000); process.stdout.write('ready\\n');`;
  await writeFile(
    scriptPath,
    `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
${behaviour.runtimeIgnoresSigterm ? "process.on('SIGTERM', () => {});" : ''}
const child = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'pipe', 'ignore'] });
const ready = new Promise((resolve) => child.stdout.once('data', resolve));
let lines = 0;
process.stdin.on('data', async (chunk) => {
  await ready;
  writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
  lines += 1;
  if (${behaviour.crashOnQuery === true} && lines > 1) process.exit(3);
  process.stdout.write(JSON.stringify({ type: 'health_ok', id: 'h' }) + '\\n');
});
`,
  );
  const transport = new SubprocessTransport({ scriptPath, killGraceMs: 100 });
  transports.push(transport);
  expect(await transport.health()).toBe(true);
  const pid = Number(await readFile(pidFile, 'utf8'));
  grandchildren.push(pid);
  return transport;
}

describe('SubprocessTransport', () => {
  it('starts the child lazily and exchanges one message per line', async () => {
    const transport = await open({
      steps: [
        { toolCall: 'calculator', arguments: { expression: '6*7' } },
        { answer: '{input} = {result}' },
      ],
    });
    expect(transport.pid).toBeUndefined();
    const request = query('6*7');
    const call = await transport.send(request);
    expect(call).toMatchObject({
      type: 'tool_call',
      toolName: 'calculator',
      toolArgs: { expression: '6*7' },
      metadata: { reply_to: request.id },
    });
    const pid = transport.pid;
    expect(pid).toBeTypeOf('number');
    const result = createOpenClawMessage({
      type: 'tool_result',
      toolName: 'calculator',
      toolResult: '42',
      metadata: { tool_call_id: call.id },
    });
    expect(await transport.send(result)).toMatchObject({ type: 'response', content: '6*7 = 42' });
    expect(transport.pid).toBe(pid);
  });

  it('answers health through health_ok, and false with the reason otherwise', async () => {
    const transport = await open({ steps: [] });
    expect(await transport.health()).toBe(true);
    expect(transport.lastHealthFailure).toBeUndefined();
    const sick = await open({ steps: [], health: 'unhealthy' });
    expect(await sick.health()).toBe(false);
    expect(sick.lastHealthFailure).toMatch(
      /answered "health" with "error" \(reference runtime is not ready\); check that .* is an OpenClaw runtime/,
    );
  });

  it('serialises concurrent calls (order correlation)', async () => {
    const transport = await open({ steps: [{ answer: 'echo {input}' }] });
    const replies = await Promise.all(['a', 'b', 'c'].map((text) => transport.send(query(text))));
    expect(replies.map((reply) => reply.content)).toEqual(['echo a', 'echo b', 'echo c']);
  });

  it('reports a missing script before spawning anything, also from health', async () => {
    const transport = new SubprocessTransport({ scriptPath: join(directory, 'missing.mjs') });
    transports.push(transport);
    const error = await failure(transport.send(query()));
    expect(error).toBeInstanceOf(OpenClawTransportError);
    expect(error).toMatchObject({ failure: 'script_not_found' });
    expect(error.message).toMatch(/^OpenClaw runtime script not found: .*missing\.mjs \(ENOENT/);
    expect(transport.pid).toBeUndefined();
    expect(await transport.health()).toBe(false);
    expect(transport.lastHealthFailure).toMatch(/script not found/);
    const folder = new SubprocessTransport({ scriptPath: directory });
    expect(await failure(folder.send(query()))).toMatchObject({
      message: expect.stringMatching(/is not a file/),
    });
  });

  it('reports a missing node binary', async () => {
    const transport = await open({ steps: [] }, { nodePath: join(directory, 'no-such-node') });
    const error = await failure(transport.send(query()));
    expect(error).toMatchObject({ failure: 'spawn_failed' });
    expect(error.message).toMatch(
      /Node\.js executable not found at .*no-such-node; install Node\.js or pass nodePath/,
    );
    expect(await transport.health()).toBe(false);
    expect(transport.lastHealthFailure).toMatch(/Node\.js executable not found/);
  });

  it('reports a crash with the exit code and stderr, then restarts the child', async () => {
    const transport = await open({ steps: [{ fault: 'crash' }] });
    expect(await transport.health()).toBe(true);
    const first = transport.pid as number;
    const error = await failure(transport.send(query()));
    expect(error).toMatchObject({ failure: 'runtime_exited' });
    expect(error.message).toMatch(
      /the process exited with code 3; last stderr: reference runtime ready\nreference runtime: crashing on purpose$/,
    );
    expect(await transport.health()).toBe(true);
    expect(transport.pid).not.toBe(first);
    expect(isRunning(first)).toBe(false);
  });

  it('times out a hanging runtime, kills it and starts a new one next time', async () => {
    const transport = await open({ steps: [{ fault: 'hang' }] }, { timeoutMs: 200 });
    expect(await transport.health()).toBe(true);
    const first = transport.pid as number;
    const error = await failure(transport.send(query()));
    expect(error).toMatchObject({ failure: 'timed_out' });
    expect(error.message).toMatch(
      /: no reply within 200 ms; last stderr: reference runtime ready$/,
    );
    expect(await transport.health()).toBe(true);
    expect(transport.pid).not.toBe(first);
  });

  it.each([
    [
      'garbage',
      /sent a bad reply; restarting it on the next call\. Invalid OpenClaw message: not valid JSON/,
    ],
    ['unknown_type', /Invalid OpenClaw message: unknown message type \(type "bogus"\)/],
    ['huge_line', /wrote a line longer than the 8388608-byte limit/],
  ] as const)(
    'treats a %s reply as a protocol error and restarts the child',
    async (fault, pattern) => {
      const transport = await open({ steps: [{ fault }] });
      expect(await transport.health()).toBe(true);
      const first = transport.pid;
      const error = await failure(transport.send(query()));
      expect(error).toBeInstanceOf(OpenClawProtocolError);
      expect(error.message).toMatch(pattern);
      expect(await transport.health()).toBe(true);
      expect(transport.pid).not.toBe(first);
    },
  );

  it('rejects a reply whose reply_to names another message', async () => {
    const transport = await open({ steps: [{ wrongReplyTo: 'stale' }] });
    const request = query();
    const error = await failure(transport.send(request));
    expect(error).toBeInstanceOf(OpenClawProtocolError);
    expect(error.message).toContain(
      `answers message "not-${request.id}", but the message in flight is "${request.id}"`,
    );
  });

  it('treats a line nobody asked for as a protocol error and restarts the child', async () => {
    const scriptPath = join(directory, 'double-reply.mjs');
    const reply = JSON.stringify({ type: 'health_ok', id: 'h' });
    await writeFile(
      scriptPath,
      `process.stdin.on('data', () => process.stdout.write('${reply}\\n${reply}\\n'));\n`,
    );
    const transport = new SubprocessTransport({ scriptPath });
    transports.push(transport);
    // Both lines arrive in one chunk: the first answers the health check, the second is unsolicited.
    expect(await transport.health()).toBe(true);
    expect(transport.pid).toBeUndefined();
    expect(await transport.health()).toBe(true);
  });

  it('drains a stderr flood and keeps only its tail', async () => {
    const transport = await open(
      { steps: [{ fault: 'crash' }], stderrBytesAtStart: 1024 * 1024 },
      { stderrTailBytes: 64 },
    );
    expect(await transport.health()).toBe(true);
    const error = await failure(transport.send(query()));
    expect(error.message).toMatch(
      /last stderr: [e\n]*reference runtime ready\nreference runtime: crashing on purpose$/,
    );
    expect(error.message.length).toBeLessThan(400);
  });

  it('cancels an exchange through the signal and kills the child', async () => {
    const transport = await open({ steps: [{ fault: 'hang' }] });
    expect(await transport.health()).toBe(true);
    const first = transport.pid;
    const controller = new AbortController();
    const pending = failure(transport.send(query(), { signal: controller.signal }));
    controller.abort();
    expect(await pending).toMatchObject({ failure: 'cancelled' });
    expect(await transport.health()).toBe(true);
    expect(transport.pid).not.toBe(first);
  });

  it('close() ends the child and waits until it is gone', async () => {
    const transport = await open({ steps: [] });
    expect(await transport.health()).toBe(true);
    const pid = transport.pid as number;
    expect(isRunning(pid)).toBe(true);
    await transport.close();
    expect(isRunning(pid)).toBe(false);
    expect(transport.pid).toBeUndefined();
  });

  it('close() uses SIGKILL when the child ignores SIGTERM, and fails the pending request', async () => {
    const transport = await open(
      { steps: [{ fault: 'hang' }], ignoreSigterm: true },
      { killGraceMs: 100 },
    );
    expect(await transport.health()).toBe(true);
    const pid = transport.pid as number;
    const pending = failure(transport.send(query()));
    await transport.close();
    expect(isRunning(pid)).toBe(false);
    expect(await pending).toMatchObject({
      failure: 'closed',
      message: expect.stringMatching(/was closed while a request was in flight/),
    });
  });

  it('close() ends a runtime that ignores SIGTERM together with the grandchild it forked', async () => {
    const transport = await openForking({
      runtimeIgnoresSigterm: true,
      grandchildIgnoresSigterm: false,
    });
    const runtime = transport.pid as number;
    const grandchild = grandchildren.at(-1) as number;
    expect(isAlive(runtime)).toBe(true);
    expect(isAlive(grandchild)).toBe(true);
    await transport.close();
    expect(isAlive(runtime)).toBe(false);
    expect(isAlive(grandchild)).toBe(false);
  });

  it('close() kills a grandchild that ignores SIGTERM after the grace period', async () => {
    const transport = await openForking({
      runtimeIgnoresSigterm: false,
      grandchildIgnoresSigterm: true,
    });
    const grandchild = grandchildren.at(-1) as number;
    expect(isAlive(grandchild)).toBe(true);
    await transport.close();
    expect(isAlive(grandchild)).toBe(false);
  });

  it('ends what a crashed runtime left running before the next call or close() resolves', async () => {
    const transport = await openForking({
      runtimeIgnoresSigterm: true,
      grandchildIgnoresSigterm: true,
      crashOnQuery: true,
    });
    const grandchild = grandchildren.at(-1) as number;
    expect(await failure(transport.send(query()))).toMatchObject({ failure: 'runtime_exited' });
    await transport.close();
    expect(isAlive(grandchild)).toBe(false);
  });

  it('validates its options', () => {
    expect(() => new SubprocessTransport({ scriptPath: '' })).toThrow(/needs scriptPath/);
    expect(() => new SubprocessTransport({ scriptPath: 'x.mjs', timeoutMs: -1 })).toThrow(
      /timeoutMs must be a positive/,
    );
    const defaults = new SubprocessTransport({ scriptPath: 'x.mjs' });
    expect(defaults.nodePath).toBe(process.execPath);
    expect(defaults.timeoutMs).toBe(30_000);
    expect(defaults.scriptPath).toBe(join(process.cwd(), 'x.mjs'));
  });
});
