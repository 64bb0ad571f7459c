import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../core/index.js';
import type { RecordedRequest, ScriptedServerOptions } from '../../testing/scripted-server.js';
import { collectStream, engineTestKit, failure } from '../engine-test-support.case.test.js';
import type { EngineRequestLogEntry } from '../http/request-log.js';
import { OllamaEngine } from '../ollama/ollama.js';
import { OpenAICompatibleEngine, type OpenAICompatibleEngineOptions } from './openai-compatible.js';

const { scriptedEngine } = engineTestKit();

const MODEL = 'm';
const QUESTION = [{ role: 'user', content: 'hello' }] as const;
/** A key of no known shape: only the engine's own knowledge of it can remove it. */
const API_KEY = 'local-proxy-secret-4711';

function openai(options: ScriptedServerOptions, engine: Partial<OpenAICompatibleEngineOptions>) {
  return scriptedEngine(
    options,
    (server, doubles) =>
      new OpenAICompatibleEngine({
        baseUrl: server.url,
        engineId: 'openai',
        ...doubles,
        ...engine,
      }),
  );
}

/** What a careless server says back: the Authorization header it got, in full. */
function echo(status: number) {
  return (request: RecordedRequest) => ({
    fault: 'status' as const,
    status,
    body: {
      error: {
        message: `invalid credentials: got Authorization: ${request.headers.authorization}; key=${API_KEY}`,
      },
    },
  });
}

function expectNoKey(text: string): void {
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(API_KEY.slice(0, 10));
}

describe('API keys never leave in errors or request-log entries', () => {
  it('a 401 that echoes the bearer token is redacted (and still says what to do)', async () => {
    const log: EngineRequestLogEntry[] = [];
    const { server, engine } = await openai(
      { handler: echo(401) },
      { apiKey: API_KEY, onRequest: (entry) => log.push(entry) },
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(error).toMatchObject({ code: 'engine_http_error', status: 401, attempts: 1 });
    expectNoKey(error.message);
    expectNoKey(JSON.stringify({ ...error, cause: String(error.cause) }));
    expect(error.message).toContain(`Authorization: ${REDACTED}`);
    expect(error.message).toContain('the server refused the API key that was sent');
    expect(log).toHaveLength(1);
    expectNoKey(JSON.stringify(log));
    expect(log[0]?.error).toContain(REDACTED);
  });

  it('a 500 that echoes it, retried three times, is redacted in the error and in every log entry', async () => {
    const log: EngineRequestLogEntry[] = [];
    const { server, engine } = await openai(
      { handler: echo(500) },
      { apiKey: API_KEY, onRequest: (entry) => log.push(entry) },
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_http_error', status: 500, attempts: 3 });
    expect(server.requests).toHaveLength(3);
    expectNoKey(error.message);
    expect(error.message).toContain(`key=${REDACTED}`);
    expect(log.map((entry) => entry.status)).toEqual([500, 500, 500]);
    expectNoKey(JSON.stringify(log));
  });

  it('a stream refused with the key echoed is redacted too', async () => {
    const { engine } = await openai({ handler: echo(403) }, { apiKey: API_KEY, maxRetries: 0 });
    const error = await failure(collectStream(engine.stream(QUESTION, { model: MODEL })));
    expectNoKey(error.message);
  });

  it('an error reported inside a 200 answer, and a key in a credential header, are redacted', async () => {
    const { engine } = await openai(
      {
        handler: () => ({ fault: 'status', status: 200, body: { error: `proxy said ${API_KEY}` } }),
      },
      { headers: { 'x-api-key': API_KEY } },
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error.code).toBe('engine_model_error');
    expectNoKey(error.message);
    expectNoKey(String((error.cause as Error).message));
  });

  it('Ollama behind a proxy: the credential header echoed in an error is redacted', async () => {
    const { engine } = await scriptedEngine(
      {
        mode: 'ollama',
        handler: (request) => ({
          fault: 'status',
          status: 502,
          body: { error: `upstream rejected ${request.headers['proxy-authorization']}` },
        }),
      },
      (server, doubles) =>
        new OllamaEngine({
          host: server.url,
          headers: { 'proxy-authorization': `Basic ${API_KEY}` },
          maxRetries: 0,
          ...doubles,
        }),
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expectNoKey(error.message);
    expect(error.message).toContain('upstream rejected');
  });
});

describe('refused requests say what to do', () => {
  it('401 without a key: none was sent, and how to set one (config, environment, SDK)', async () => {
    const { engine } = await openai({ script: [{ fault: 'status', status: 401 }] }, {});
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_http_error', status: 401 });
    expect(error.message).toContain('the server wants an API key and none was sent');
    expect(error.message).toContain('HTTP 401: scripted HTTP 401');
    expect(error.message).toContain('`api_key` under [engine.openai]');
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('SDK: the apiKey option');
  });

  it('403 with a key: the key was refused; the model list says the same', async () => {
    const { engine } = await openai(
      {
        script: [{ fault: 'status', status: 403 }],
        modelsFault: { fault: 'status', status: 401 },
      },
      { apiKey: API_KEY },
    );
    const chat = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(chat.message).toContain('the server refused the API key that was sent');
    const models = await failure(engine.listModels());
    expect(models.message).toContain('the server refused the API key that was sent');
  });

  it('404 for an unknown model names the model and how to list the served ones', async () => {
    const { server, engine } = await openai(
      {
        script: [
          {
            fault: 'status',
            status: 404,
            body: { error: { message: 'The model `qwen9` does not exist.' } },
          },
        ],
      },
      {},
    );
    const error = await failure(engine.generate(QUESTION, { model: 'qwen9' }));
    expect(error).toMatchObject({ code: 'engine_model_error', status: 404, attempts: 1 });
    expect(error.message).toContain("the server does not know the model 'qwen9'");
    expect(error.message).toContain('The model `qwen9` does not exist.');
    expect(error.message).toContain('`jarvis models`');
    expect(server.requests).toHaveLength(1);
  });

  it('404 that names no model means a wrong address, and says so', async () => {
    const { engine } = await openai(
      { script: [{ fault: 'status', status: 404, body: 'Cannot POST' }] },
      {},
    );
    const error = await failure(engine.generate(QUESTION, { model: MODEL }));
    expect(error).toMatchObject({ code: 'engine_http_error', status: 404 });
    expect(error.message).toContain('the server has no /v1/chat/completions endpoint');
    expect(error.message).toContain('OpenAI-compatible server');
  });
});
