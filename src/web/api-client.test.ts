import { describe, expect, it } from 'vitest';
import { ApiClient, ApiFailure, chatEvents } from './api-client.js';
import { listData, runTraceOf, taskOf } from './api-types.js';
import { API_KEY_ITEM, loadKey, saveKey } from './key-store.js';

function streamOf(pieces: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

describe('chatEvents', () => {
  it('reads the chat events of an SSE body split anywhere, even inside a character', async () => {
    const bytes = new TextEncoder().encode(
      'event: text_delta\ndata: {"turn":1,"text":"día"}\n\nevent: result\ndata: {"content":"día"}\n\n',
    );
    const pieces = [bytes.slice(0, 40), bytes.slice(40, 41), bytes.slice(41)];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
    const events = [];
    for await (const event of chatEvents(body)) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['text_delta', 'result']);
    expect(events[0]).toMatchObject({ text: 'día' });
  });
});

describe('ApiClient', () => {
  it('sends the key as Bearer and posts the question with its session', async () => {
    const seen: { url: string; auth: string | null; body: unknown }[] = [];
    const client = new ApiClient({
      key: () => 'k1',
      fetch: async (url, init) => {
        seen.push({
          url: String(url),
          auth: new Headers(init?.headers).get('authorization'),
          body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
        });
        return new Response(streamOf(['event: run_start\ndata: {"session_id":"s1"}\n\n']));
      },
    });
    const events = [];
    for await (const event of client.chat({ input: 'Hi', session: 's0' })) events.push(event);
    expect(events).toEqual([{ type: 'run_start', sessionId: 's1' }]);
    expect(seen).toEqual([
      { url: '/api/chat', auth: 'Bearer k1', body: { input: 'Hi', session: 's0' } },
    ]);
  });

  it("turns an error answer into an ApiFailure with the server's message and code", async () => {
    const client = new ApiClient({
      key: () => undefined,
      fetch: async () =>
        Response.json(
          { error: { message: 'Missing or wrong API key', code: 'invalid_api_key' } },
          { status: 401 },
        ),
    });
    const failure = await client.getJson('/api/runs').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiFailure);
    expect(failure).toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      message: 'Missing or wrong API key',
    });
    const down = new ApiClient({
      key: () => undefined,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    await expect(down.getJson('/api/runs')).rejects.toMatchObject({
      status: 0,
      code: 'unreachable',
    });
  });
});

describe('api-types', () => {
  it('reads lists, traces and tasks defensively (wrong types become empty values)', () => {
    expect(listData({ data: [{ id: 1 }, 'x', null] })).toEqual([{ id: 1 }]);
    expect(listData('nope')).toEqual([]);
    const trace = runTraceOf({
      id: 'r1',
      spans: [
        {
          span_id: 'a',
          kind: 'agent',
          started_ms: 10,
          attributes: { agent: 'simple', nested: { no: 1 } },
          children: [{ span_id: 'm', kind: 'model', started_ms: 12, ended_ms: 15, children: [] }],
        },
      ],
    });
    expect(trace.spans.map((s) => [s.id, s.parentId, s.depth])).toEqual([
      ['a', '', 0],
      ['m', 'a', 1],
    ]);
    expect(trace.spans[0]?.attributes).toEqual({ agent: 'simple' });
    expect(
      taskOf({ id: 't', recent_runs: [{ id: 3, success: false, error: 'boom' }] }).recentRuns,
    ).toEqual([
      { id: '3', scheduledFor: '', status: '', success: false, result: '', error: 'boom' },
    ]);
  });
});

describe('key-store', () => {
  it('keeps the key in the given storage and survives a storage that refuses', () => {
    const items = new Map<string, string>();
    const storage = {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
      removeItem: (key: string) => void items.delete(key),
    };
    saveKey(storage, 'abc');
    expect(items.get(API_KEY_ITEM)).toBe('abc');
    expect(loadKey(storage)).toBe('abc');
    saveKey(storage, undefined);
    expect(loadKey(storage)).toBeUndefined();
    const refusing = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
      removeItem: () => undefined,
    };
    expect(loadKey(refusing)).toBeUndefined();
    expect(() => saveKey(refusing, 'x')).not.toThrow();
    expect(loadKey(undefined)).toBeUndefined();
  });
});
