import { describe, expect, it } from 'vitest';
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
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
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
