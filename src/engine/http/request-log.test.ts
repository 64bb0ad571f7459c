import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/index.js';
import { collectStream, engineTestKit, failure } from '../engine-test-support.case.test.js';
import { OllamaEngine } from '../ollama/ollama.js';
import { OpenAICompatibleEngine } from '../openai/openai-compatible.js';
import type { EngineRequestLogEntry } from './request-log.js';

const { scriptedEngine } = engineTestKit();

const QUESTION = [{ role: 'user', content: 'hello' }] as const;

/** A clock whose monotonic time moves 10 ms each time it is read. */
function steppingClock(): Clock {
  let nowMs = 0;
  return { nowMs: () => 0, monotonicMs: () => (nowMs += 10) };
}

describe('the request log of HTTP engines', () => {
  it('reports each attempt: method, address, status, time and the error of a failed one', async () => {
    const log: EngineRequestLogEntry[] = [];
    const { server, engine } = await scriptedEngine(
      { script: [{ fault: 'status', status: 503 }, { content: 'ok' }] },
      (scripted, doubles) =>
        new OpenAICompatibleEngine({
          baseUrl: scripted.url,
          engineId: 'vllm',
          onRequest: (entry) => log.push(entry),
          clock: steppingClock(),
          ...doubles,
        }),
    );
    await engine.generate(QUESTION, { model: 'm' });
    await engine.listModels();
    const url = `${server.url}/v1/chat/completions`;
    expect(log).toEqual([
      {
        engineId: 'vllm',
        method: 'POST',
        url,
        attempt: 1,
        phase: 'response',
        status: 503,
        durationMs: 10,
        error: 'HTTP 503: scripted HTTP 503',
      },
      {
        engineId: 'vllm',
        method: 'POST',
        url,
        attempt: 2,
        phase: 'response',
        status: 200,
        durationMs: 10,
      },
      {
        engineId: 'vllm',
        method: 'GET',
        url: `${server.url}/v1/models`,
        attempt: 1,
        phase: 'response',
        status: 200,
        durationMs: 10,
      },
    ]);
  });

  it('reports a stream when its first bytes arrive and again when its body ends', async () => {
    const log: EngineRequestLogEntry[] = [];
    const { engine } = await scriptedEngine(
      { mode: 'ollama', script: [{ content: 'a b' }, { fault: 'cut_stream', afterChunks: 1 }] },
      (scripted, doubles) =>
        new OllamaEngine({ host: scripted.url, onRequest: (entry) => log.push(entry), ...doubles }),
    );
    await collectStream(engine.stream(QUESTION, { model: 'm' }));
    expect(log.map(({ phase, status, error }) => ({ phase, status, error }))).toEqual([
      { phase: 'response', status: 200, error: undefined },
      { phase: 'stream_end', status: 200, error: undefined },
    ]);
    await failure(collectStream(engine.stream(QUESTION, { model: 'm' })));
    expect(log.slice(2).map(({ phase }) => phase)).toEqual(['response', 'stream_end']);
    expect(log[3]?.error).toContain('the stream was cut off');
  });

  it('a log callback that throws changes nothing', async () => {
    const { engine } = await scriptedEngine(
      { script: [{ content: 'still fine' }] },
      (scripted, doubles) =>
        new OpenAICompatibleEngine({
          baseUrl: scripted.url,
          onRequest: () => {
            throw new Error('broken logger');
          },
          ...doubles,
        }),
    );
    expect((await engine.generate(QUESTION, { model: 'm' })).content).toBe('still fine');
  });

  it('secrets in the address itself are redacted', async () => {
    const log: EngineRequestLogEntry[] = [];
    const key = 'path-secret-key-123';
    const { engine } = await scriptedEngine(
      { script: [{ fault: 'status', status: 404, body: 'no such route' }] },
      (scripted, doubles) =>
        new OpenAICompatibleEngine({
          baseUrl: `${scripted.url}/proxy/${key}`,
          apiKey: key,
          onRequest: (entry) => log.push(entry),
          ...doubles,
        }),
    );
    const error = await failure(engine.generate(QUESTION, { model: 'm' }));
    expect(error.address).not.toContain(key);
    expect(error.message).not.toContain(key);
    expect(log[0]?.url).toMatch(/\/proxy\/\[REDACTED\]\/v1\/chat\/completions$/);
  });
});
