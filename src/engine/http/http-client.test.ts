import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { JarvisError } from '../../core/index.js';
import { delayReply } from '../../testing/scripted-server.js';
import { engineTestKit, failure, turns } from '../engine-test-support.case.test.js';
import {
  abortableSleep,
  extractErrorMessage,
  HttpClient,
  type HttpClientOptions,
  parseRetryAfterMs,
} from './http-client.js';

const { track, rawServer, scriptedServer: scripted } = engineTestKit();

function client(options: Partial<HttpClientOptions> & { baseUrl: string }): HttpClient {
  return track(
    new HttpClient({
      engineId: 'test',
      timeoutMs: 500,
      sleep: async () => {},
      ...options,
    }),
  );
}

async function readAll(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

const CHAT = { path: '/chat/completions', body: { model: 'm', messages: [] } } as const;

describe('HttpClient JSON requests', () => {
  it('sends JSON to a path under the base URL with default and per-request headers', async () => {
    const server = await scripted({ script: [{ content: 'hi' }] });
    const http = client({ baseUrl: `${server.baseUrl}/`, headers: { 'x-default': 'a' } });
    expect(http.baseUrl).toBe(server.baseUrl);
    expect(http.address('/models')).toBe(`${server.baseUrl}/models`);
    const response = await http.requestJson({ ...CHAT, headers: { 'x-request': 'b' } });
    expect(response).toMatchObject({ status: 200, attempts: 1 });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({ choices: [{ message: { content: 'hi' } }] });
    const recorded = server.requests[0];
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: CHAT.body,
    });
    expect(recorded?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-default': 'a',
      'x-request': 'b',
    });
    const models = await http.requestJson({ path: '/models' });
    expect(models.body).toMatchObject({ data: [{ id: 'scripted-model' }] });
    expect(server.requests[1]?.method).toBe('GET');
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => new HttpClient({ baseUrl: 'localhost:8000', engineId: 'x' })).toThrow(JarvisError);
    expect(() => new HttpClient({ baseUrl: 'file:///tmp', engineId: 'x' })).toThrow(
      /expected http\(s\)/,
    );
  });

  it('retries 408, 409, 429 and 5xx, never other 4xx', async () => {
    for (const status of [408, 409, 429, 500, 504, 599]) {
      const server = await scripted({ script: [{ fault: 'status', status }, { content: 'ok' }] });
      const response = await client({ baseUrl: server.baseUrl }).requestJson(CHAT);
      expect(response.attempts).toBe(2);
    }
    for (const status of [400, 401, 403, 404, 413, 422]) {
      const server = await scripted({ script: [{ fault: 'status', status }] });
      const error = await failure(client({ baseUrl: server.baseUrl }).requestJson(CHAT));
      expect(error).toMatchObject({ code: 'engine_http_error', status, attempts: 1 });
      expect(server.requests).toHaveLength(1);
    }
  });

  it('takes the number of retries from the client or the request', async () => {
    const fault = { fault: 'status', status: 503 } as const;
    const server = await scripted({ script: [fault, fault, fault, fault, fault, fault] });
    const http = client({ baseUrl: server.baseUrl, maxRetries: 4 });
    expect(await failure(http.requestJson(CHAT))).toMatchObject({ attempts: 5 });
    expect(await failure(http.requestJson({ ...CHAT, maxRetries: 0 }))).toMatchObject({
      attempts: 1,
    });
    expect(server.requests).toHaveLength(6);
  });

  it('refuses a body larger than maxBodyBytes as a protocol error, without retrying', async () => {
    const server = await scripted({ script: [{ content: 'x'.repeat(1_000) }] });
    const error = await failure(
      client({ baseUrl: server.baseUrl, maxBodyBytes: 200 }).requestJson(CHAT),
    );
    expect(error).toMatchObject({ code: 'engine_protocol_error', attempts: 1 });
    expect(error.message).toContain('larger than the body limit');
  });

  it('a JSON body split over several pieces is joined; one cut off mid-way is engine_unavailable, retried', async () => {
    let requests = 0;
    const url = await rawServer((_request, res) => {
      requests += 1;
      const text = JSON.stringify({ answer: 'prix: 5 €', n: requests });
      const bytes = Buffer.from(text, 'utf8');
      const cut = bytes.indexOf(0xe2) + 1;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      res.write(bytes.subarray(0, cut));
      // Odd answers lose their connection half-way; even ones arrive whole, in two pieces.
      if (requests % 2 === 1) setImmediate(() => res.socket?.destroy());
      else setImmediate(() => res.end(bytes.subarray(cut)));
    });
    const response = await client({ baseUrl: url, maxRetries: 1 }).requestJson(CHAT);
    expect(response).toMatchObject({ attempts: 2, body: { answer: 'prix: 5 €', n: 2 } });
    const error = await failure(client({ baseUrl: url, maxRetries: 0 }).requestJson(CHAT));
    expect(error).toMatchObject({ code: 'engine_unavailable', attempts: 1 });
  });

  it('an error answer larger than its limit is read only in part, and its words still reported', async () => {
    const url = await rawServer((_request, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`model runner crashed ${'x'.repeat(200_000)}`);
    });
    const error = await failure(client({ baseUrl: url, maxRetries: 0 }).requestJson(CHAT));
    expect(error).toMatchObject({ code: 'engine_http_error', attempts: 1 });
    expect(error.message).toContain('HTTP 500: model runner crashed');
  });

  it('names the engine, the address, the attempts and the server message in its errors', async () => {
    const server = await scripted({
      script: [{ fault: 'status', status: 500, body: { error: 'model runner crashed' } }],
    });
    const http = track(
      new HttpClient({ baseUrl: server.baseUrl, engineId: 'ollama', maxRetries: 0 }),
    );
    const error = await failure(http.requestJson(CHAT));
    expect(error.message).toBe(
      `ollama engine at ${server.baseUrl}/chat/completions failed: HTTP 500: model runner crashed`,
    );
  });
});

describe('HttpClient retries and cancellation', () => {
  it('the default sleep between attempts is cancelled by the signal', async () => {
    const server = await scripted({ script: [{ fault: 'status', status: 503 }] });
    const http = track(
      new HttpClient({ baseUrl: server.baseUrl, engineId: 'test', retryBaseDelayMs: 60_000 }),
    );
    const controller = new AbortController();
    const pending = http.requestJson({ ...CHAT, signal: controller.signal });
    while (server.requests.length === 0) await turns(1);
    await turns();
    controller.abort();
    expect(await failure(pending)).toMatchObject({ code: 'engine_cancelled', attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('an abort while waiting for the answer rejects at once and is not retried', async () => {
    const server = await scripted({ script: [delayReply(60_000, {})] });
    const http = client({ baseUrl: server.baseUrl, timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = http.requestStream({ ...CHAT, signal: controller.signal });
    while (server.requests.length === 0) await turns(1);
    controller.abort(new Error('user pressed ctrl-c'));
    const error = await failure(pending);
    expect(error).toMatchObject({ code: 'engine_cancelled', attempts: 1 });
    expect((error.cause as Error).message).toBe('user pressed ctrl-c');
  });

  it('an abort without a reason, before or while waiting, is engine_cancelled with an AbortError', async () => {
    const server = await scripted({ script: [delayReply(60_000, {})] });
    const http = client({ baseUrl: server.baseUrl, timeoutMs: 60_000 });
    const early = await failure(http.requestJson({ ...CHAT, signal: AbortSignal.abort() }));
    expect(early).toMatchObject({ code: 'engine_cancelled', attempts: 1 });
    expect(server.requests).toHaveLength(0);
    const controller = new AbortController();
    const pending = http.requestJson({ ...CHAT, signal: controller.signal });
    while (server.requests.length === 0) await turns(1);
    controller.abort();
    const error = await failure(pending);
    expect(error).toMatchObject({ code: 'engine_cancelled', attempts: 1 });
    expect((error.cause as Error).name).toBe('AbortError');
  });

  it('close() fails later requests and is harmless twice', async () => {
    const server = await scripted({ script: [delayReply(60_000, {})] });
    const http = client({ baseUrl: server.baseUrl, timeoutMs: 60_000 });
    const inFlight = http.requestJson(CHAT);
    while (server.requests.length === 0) await turns(1);
    await http.close();
    await http.close();
    expect(await failure(inFlight)).toMatchObject({ code: 'engine_unavailable', attempts: 1 });
    const error = await failure(http.requestJson(CHAT));
    expect(error).toMatchObject({ code: 'engine_unavailable', attempts: 1 });
    expect(error.message).toContain('the client was closed');
    expect(server.requests).toHaveLength(1);
  });
});

describe('HttpClient streams', () => {
  it('resolves once the first bytes arrive and decodes UTF-8 split across chunks', async () => {
    let writeRest: () => void = () => {};
    const url = await rawServer((_request, res) => {
      const bytes = Buffer.from('price: 5 €, done', 'utf8');
      const cut = bytes.indexOf(0xe2) + 1;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(bytes.subarray(0, cut));
      writeRest = () => res.end(bytes.subarray(cut));
    });
    const response = await client({ baseUrl: url }).requestStream({ path: '/stream', body: {} });
    expect(response).toMatchObject({ status: 200, attempts: 1 });
    writeRest();
    expect(await readAll(response.chunks)).toBe('price: 5 €, done');
  });

  it('a gap longer than the timeout mid-stream is engine_timeout, not retried', async () => {
    const server = await scripted({ script: [{ fault: 'stall', afterChunks: 1 }] });
    // The same limit also bounds the wait for the first byte: 100 ms was missed on a loaded machine, so the first
    // attempt timed out and was retried before the stream began.
    const response = await client({ baseUrl: server.baseUrl, timeoutMs: 1_000 }).requestStream({
      ...CHAT,
      body: { ...CHAT.body, stream: true },
    });
    const error = await failure(readAll(response.chunks));
    expect(error).toMatchObject({ code: 'engine_timeout', attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('a connection lost mid-stream is engine_stream_cut; before the first byte it is retried', async () => {
    const server = await scripted({
      script: [
        { fault: 'cut_stream', afterChunks: 0 },
        { fault: 'cut_stream', afterChunks: 2 },
      ],
    });
    const response = await client({ baseUrl: server.baseUrl }).requestStream({
      ...CHAT,
      body: { ...CHAT.body, stream: true },
    });
    expect(response.attempts).toBe(2);
    const error = await failure(readAll(response.chunks));
    expect(error).toMatchObject({ code: 'engine_stream_cut', attempts: 2 });
    expect(error.message).toContain('the stream was cut off');
  });

  it('cancel() closes the connection; release() lets a finished body end and keeps it', async () => {
    const sockets = new Set<Socket>();
    let finish: () => void = () => {};
    const url = await rawServer((_request, res) => {
      sockets.add(res.socket as Socket);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      finish = () => res.end('data: [DONE]\n\n');
    });
    const http = client({ baseUrl: url });
    const cancelled = await http.requestStream({ path: '/s', body: {} });
    cancelled.cancel();
    const [cancelledSocket] = sockets;
    while (cancelledSocket?.destroyed === false) await turns(1);
    const released = await http.requestStream({ path: '/s', body: {} });
    released.release();
    finish();
    await turns();
    await http.requestStream({ path: '/s', body: {} }).then((response) => response.cancel());
    expect(sockets.size).toBe(2);
  });
});

describe('HttpClient helpers', () => {
  it('parseRetryAfterMs reads seconds and HTTP dates', () => {
    const nowMs = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(parseRetryAfterMs('5', nowMs)).toBe(5_000);
    expect(parseRetryAfterMs(' 1.5 ', nowMs)).toBe(1_500);
    expect(parseRetryAfterMs(['2', '9'], nowMs)).toBe(2_000);
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', nowMs)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:00:00 GMT', nowMs)).toBe(0);
    expect(parseRetryAfterMs('soon', nowMs)).toBeUndefined();
    expect(parseRetryAfterMs('-3', nowMs)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, nowMs)).toBeUndefined();
  });

  it('honours an HTTP-date Retry-After using the injected clock', async () => {
    const nowMs = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    const server = await scripted({
      script: [
        { fault: 'status', status: 503, retryAfter: 'Wed, 21 Oct 2015 07:28:04 GMT' },
        { content: 'ok' },
      ],
    });
    const sleeps: number[] = [];
    const http = client({
      baseUrl: server.baseUrl,
      clock: { nowMs: () => nowMs, monotonicMs: () => 0 },
      sleep: async (ms) => void sleeps.push(ms),
    });
    await http.requestJson(CHAT);
    expect(sleeps).toEqual([4_000]);
  });

  it('extractErrorMessage finds the server words in OpenAI, Ollama and plain bodies', () => {
    expect(extractErrorMessage('{"error":{"message":"bad model","type":"x"}}')).toBe('bad model');
    expect(extractErrorMessage('{"error":"model not found"}')).toBe('model not found');
    expect(extractErrorMessage('{"detail":"Not Found"}')).toBe('Not Found');
    expect(extractErrorMessage('  Bad Gateway \n')).toBe('Bad Gateway');
    expect(extractErrorMessage('{"other":1}')).toBe('{"other":1}');
    expect(extractErrorMessage('x'.repeat(600))).toHaveLength(501);
  });

  it('abortableSleep resolves, or rejects with the abort reason', async () => {
    await abortableSleep(0);
    const controller = new AbortController();
    const pending = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await expect(abortableSleep(10, AbortSignal.abort(new Error('already')))).rejects.toThrow(
      'already',
    );
  });
});
