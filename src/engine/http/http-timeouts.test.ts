import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamChunk } from '../../core/index.js';
import { delayReply, type ScriptedServerOptions } from '../../testing/scripted-server.js';
import {
  engineTestKit,
  failure,
  readStream,
  streamedText,
} from '../engine-test-support.case.test.js';
import { OllamaEngine } from '../ollama/ollama.js';
import {
  OpenAICompatibleEngine,
  type OpenAICompatibleEngineOptions,
} from '../openai/openai-compatible.js';
import {
  AttemptScope,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  RequestDeadline,
  resolveTimeouts,
} from './http-timeouts.js';

const { scriptedEngine } = engineTestKit();

const MODEL = 'slow-model';
const QUESTION = [{ role: 'user', content: 'hello' }] as const;

function openai(options: ScriptedServerOptions, engine: Partial<OpenAICompatibleEngineOptions>) {
  return scriptedEngine(
    options,
    (server, doubles) =>
      new OpenAICompatibleEngine({ baseUrl: server.url, engineId: 'vllm', ...doubles, ...engine }),
  );
}

/** Reads a stream until it fails; returns the chunks seen and the error. */
async function streamUntilFailure(stream: AsyncIterable<StreamChunk>) {
  const seen: StreamChunk[] = [];
  const error = await failure(readStream(stream, seen));
  return { seen, error };
}

describe('timeout defaults', () => {
  it('separates connect, first byte, idle and the overall deadline, and timeoutMs bounds or raises them', () => {
    expect(resolveTimeouts({})).toEqual({
      connectMs: DEFAULT_CONNECT_TIMEOUT_MS,
      firstByteMs: DEFAULT_HTTP_TIMEOUT_MS,
      idleMs: DEFAULT_IDLE_TIMEOUT_MS,
      deadlineMs: DEFAULT_DEADLINE_MS,
    });
    expect([DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_DEADLINE_MS]).toEqual([
      10_000, 60_000, 600_000,
    ]);
    expect(resolveTimeouts({ timeoutMs: 5_000 })).toEqual({
      connectMs: 5_000,
      firstByteMs: 5_000,
      idleMs: 5_000,
      deadlineMs: 600_000,
    });
    expect(resolveTimeouts({ timeoutMs: 1_800_000 }).deadlineMs).toBe(1_800_000);
    expect(resolveTimeouts({ timeoutMs: 1_000, idleTimeoutMs: 3_000 }).idleMs).toBe(3_000);
  });
});

describe('the deadline and attempt timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const TIMEOUTS = { connectMs: 50, firstByteMs: 100, idleMs: 40, deadlineMs: 1_000 };

  it('a deadline signal asked for before or after the deadline reports it, and the attempt hears of it', () => {
    vi.useFakeTimers();
    const early = new RequestDeadline(1_000);
    const signal = early.signal;
    const scope = new AttemptScope(undefined, early, TIMEOUTS);
    scope.stopTimer();
    const reasons: unknown[] = [];
    scope.onAbort((reason) => reasons.push(reason));
    vi.advanceTimersByTime(1_000);
    expect([signal.aborted, early.expired, scope.aborted, scope.timedOut]).toEqual([
      true,
      true,
      true,
      'deadline',
    ]);
    expect((reasons[0] as Error).message).toBe('deadline timeout');
    const late = new RequestDeadline(10);
    vi.advanceTimersByTime(10);
    expect(late.signal.aborted).toBe(true);
    // An attempt started after the deadline is aborted at once; its listener is called when it is set.
    const after = new AttemptScope(undefined, late, TIMEOUTS);
    const heard: unknown[] = [];
    after.onAbort((reason) => heard.push(reason));
    expect(heard).toHaveLength(1);
    after.dispose();
    scope.dispose();
  });

  it('an attempt aborted by its caller without a reason gets an AbortError; a disposed one hears nothing', () => {
    vi.useFakeTimers();
    const deadline = new RequestDeadline(1_000);
    const controller = new AbortController();
    const scope = new AttemptScope(controller.signal, deadline, TIMEOUTS);
    let reason: unknown;
    scope.onAbort((r) => {
      reason = r;
    });
    controller.abort();
    expect(scope.cancelled).toBe(true);
    expect((reason as Error).name).toBe('AbortError');
    const quiet = new AttemptScope(undefined, deadline, TIMEOUTS);
    const heard: unknown[] = [];
    quiet.onAbort((r) => heard.push(r));
    quiet.dispose();
    vi.advanceTimersByTime(1_000);
    expect([heard, quiet.aborted, deadline.expired]).toEqual([[], false, true]);
    scope.dispose();
  });

  it('restarting the idle wait pushes it back; switching waits starts the other one', () => {
    vi.useFakeTimers();
    const deadline = new RequestDeadline(1_000);
    const scope = new AttemptScope(undefined, deadline, TIMEOUTS);
    scope.startTimer('idle');
    for (let i = 0; i < 5; i += 1) {
      vi.advanceTimersByTime(30);
      scope.startTimer('idle');
    }
    expect(scope.aborted).toBe(false);
    vi.advanceTimersByTime(40);
    expect(scope.timedOut).toBe('idle');
    const next = new AttemptScope(undefined, deadline, TIMEOUTS);
    scope.dispose();
    vi.advanceTimersByTime(99);
    expect(next.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(next.timedOut).toBe('first_byte');
    next.dispose();
    deadline.dispose();
  });

  it('the first-byte wait runs its whole length on one timer, which the start of the answer restarts as the idle wait', () => {
    vi.useFakeTimers();
    const deadline = new RequestDeadline(1_000);
    // Past the idle wait's length, the first byte is still awaited.
    const slow = new AttemptScope(undefined, deadline, TIMEOUTS);
    vi.advanceTimersByTime(99);
    expect(slow.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(slow.timedOut).toBe('first_byte');
    slow.dispose();
    // The answer begins before the idle wait's length: the same timer now waits `idleMs` from there.
    const quick = new AttemptScope(undefined, deadline, TIMEOUTS);
    const timers = vi.getTimerCount();
    vi.advanceTimersByTime(10);
    quick.startTimer('idle');
    expect(vi.getTimerCount()).toBe(timers);
    vi.advanceTimersByTime(39);
    expect(quick.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(quick.timedOut).toBe('idle');
    quick.dispose();
    // The answer begins after it: the idle wait still counts from there.
    const late = new AttemptScope(undefined, deadline, TIMEOUTS);
    vi.advanceTimersByTime(70);
    late.startTimer('idle');
    vi.advanceTimersByTime(39);
    expect(late.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(late.timedOut).toBe('idle');
    late.dispose();
    // An idle wait longer than the first-byte one: each wait still runs its own length.
    const long = new AttemptScope(undefined, deadline, { ...TIMEOUTS, idleMs: 300 });
    vi.advanceTimersByTime(50);
    long.startTimer('idle');
    vi.advanceTimersByTime(299);
    expect(long.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(long.timedOut).toBe('idle');
    long.dispose();
    deadline.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a server that takes the request and never answers', () => {
  const silent = delayReply(60_000, { content: 'never sent' });

  it('generate: first-byte timeout, retried once, naming the model and the address', async () => {
    const { server, engine } = await openai(
      { script: [silent, silent, silent] },
      { timeoutMs: 100 },
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_timeout', attempts: 2 });
    expect(server.requests).toHaveLength(2);
    expect(error.message).toContain(
      `vllm engine at ${server.url}/v1/chat/completions failed after 2 attempts`,
    );
    expect(error.message).toContain(`no answer of model '${MODEL}' within 100 ms`);
    expect(error.message).toContain('first-byte timeout');
  });

  it('stream: the same, before any chunk', async () => {
    const { server, engine } = await openai(
      { script: [silent, silent, silent] },
      { timeoutMs: 100, maxRetries: 5 },
    );
    const { seen, error } = await streamUntilFailure(engine.stream(QUESTION, { model: MODEL }));
    expect(seen).toEqual([]);
    expect(error).toMatchObject({ code: 'engine_timeout', attempts: 2 });
    expect(error.message).toContain(`model '${MODEL}'`);
    expect(server.requests).toHaveLength(2);
  });

  it('a transient failure before the timeout does not use up its one retry', async () => {
    const { server, engine } = await openai(
      { script: [{ fault: 'status', status: 503 }, silent, { content: 'finally' }] },
      { timeoutMs: 100 },
    );
    expect((await engine.generate(QUESTION, { model: MODEL })).content).toBe('finally');
    expect(server.requests).toHaveLength(3);
  });

  it('Ollama: the same timeout, naming the model', async () => {
    const { server, engine } = await scriptedEngine(
      { mode: 'ollama', script: [silent, silent] },
      (scripted, doubles) => new OllamaEngine({ host: scripted.url, timeoutMs: 100, ...doubles }),
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_timeout', attempts: 2 });
    expect(error.message).toContain(`ollama engine at ${server.url}/api/chat failed`);
    expect(error.message).toContain(`model '${MODEL}'`);
  });
});

describe('a stream that never ends', () => {
  it('a token every 20 ms forever is ended by the overall deadline, without a retry', async () => {
    const { server, engine } = await openai(
      { script: [{ fault: 'trickle', intervalMs: 20, text: 'tick ' }] },
      { timeoutMs: 1_000, idleTimeoutMs: 1_000, deadlineMs: 300 },
    );
    const { seen, error } = await streamUntilFailure(engine.stream(QUESTION, { model: MODEL }));
    expect(streamedText(seen, 'text_delta')).toMatch(/^(tick )+$/);
    expect(error).toMatchObject({ code: 'engine_timeout', attempts: 1 });
    expect(error.message).toContain(
      `the answer of model '${MODEL}' took longer than the overall deadline of 300 ms`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a non-streamed answer that trickles whitespace is ended by the deadline too', async () => {
    const { server, engine } = await openai(
      { script: [{ fault: 'trickle', intervalMs: 20 }] },
      { timeoutMs: 1_000, idleTimeoutMs: 1_000, deadlineMs: 300 },
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_timeout', attempts: 1 });
    expect(error.message).toContain('overall deadline of 300 ms');
    expect(server.requests).toHaveLength(1);
  });

  it('a stream that stalls mid-way ends at the idle timeout, long before the first-byte one', async () => {
    const { server, engine } = await openai(
      { script: [{ fault: 'stall', afterChunks: 2, reply: { content: 'one two three four' } }] },
      { timeoutMs: 30_000, idleTimeoutMs: 100 },
    );
    const { seen, error } = await streamUntilFailure(engine.stream(QUESTION, { model: MODEL }));
    expect(streamedText(seen, 'text_delta')).toBe('one ');
    expect(error).toMatchObject({ code: 'engine_timeout', attempts: 1 });
    expect(error.message).toContain(`the answer of model '${MODEL}' stalled`);
    expect(error.message).toContain('nothing arrived for 100 ms (idle timeout');
    expect(server.requests).toHaveLength(1);
  });

  it('a slow but steady stream within the deadline completes', async () => {
    const { engine } = await openai(
      { script: [delayReply(150, { content: 'late but whole' })] },
      { timeoutMs: 1_000, idleTimeoutMs: 100 },
    );
    const seen: StreamChunk[] = [];
    await readStream(engine.stream(QUESTION, { model: MODEL }), seen);
    expect(streamedText(seen, 'text_delta')).toBe('late but whole');
  });
});
