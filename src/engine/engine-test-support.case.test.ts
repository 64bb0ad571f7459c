import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterEach, expect } from 'vitest';
import {
  EngineError,
  type InferenceEngine,
  type StreamChunk,
  type ToolCall,
} from '../core/index.js';
import {
  type ScriptedOpenAIServer,
  type ScriptedServerMode,
  type ScriptedServerOptions,
  startScriptedOpenAIServer,
} from '../testing/scripted-server.js';
import type { SleepFunction } from './http/http-client.js';

// Test helpers shared by the engine tests (a `.case.test.ts` file: vitest does not run it on its own, and the
// build leaves it out).

/**
 * What the engine contract needs an engine to do on its next call: `answer` with some text; answer at `long`
 * length or stall mid-way, so the caller can cancel it; end a stream early (`cut_stream`); or be `down`.
 */
export type EngineBehaviour = 'answer' | 'long' | 'cut_stream' | 'down';

/** Where an HTTP engine under test should connect. */
export interface EngineContractAddress {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `url + '/v1'`. */
  readonly baseUrl: string;
}

/** How to run the engine contract against an engine on a model server (the scripted one, or a closed port). */
export interface HttpEngineContractSetup {
  readonly name: string;
  /** The API the scripted server speaks for this engine; default `openai`. */
  readonly serverMode?: ScriptedServerMode;
  /** Builds the engine under test for the given address. */
  makeEngine(address: EngineContractAddress): InferenceEngine;
}

/** How to run the engine contract against an in-process engine: it is made to show each behaviour it can. */
export interface InProcessEngineContractSetup {
  readonly name: string;
  /** The behaviours it can be made to show (`answer`, `long` and `down` at least). */
  readonly behaviours: readonly EngineBehaviour[];
  /** Builds an engine whose next call shows `behaviour`; `track` closes what the test opened besides it. */
  makeEngineShowing(behaviour: EngineBehaviour, kit: EngineTestKit): Promise<InferenceEngine>;
}

/** Anything a test opens that must be closed after it. */
export interface Closable {
  close(): Promise<void>;
}

/** Handles an HTTP request of a bare test server, once its body has been read. */
export type RawHandler = (request: IncomingMessage, res: ServerResponse) => void;

/** The test doubles a scripted engine is built with: fixed randomness, and a sleep that records its waits. */
export interface EngineDoubles {
  readonly random: () => number;
  readonly sleep: SleepFunction;
}

/** A scripted server, an engine connected to it, and the waits the engine asked to sleep (none slept). */
export interface ScriptedEngine<Engine> {
  readonly server: ScriptedOpenAIServer;
  readonly engine: Engine;
  readonly sleeps: number[];
}

/** Opens servers and engines for the tests of one file, and closes them (in order) after each test. */
export interface EngineTestKit {
  /** Closes `closable` after the test; returns it. */
  track<Value extends Closable>(closable: Value): Value;
  /** Starts a bare server on 127.0.0.1 for answers the scripted server does not produce; returns its URL. */
  rawServer(handle: RawHandler): Promise<string>;
  /** Starts a scripted model server. */
  scriptedServer(options: ScriptedServerOptions): Promise<ScriptedOpenAIServer>;
  /** Starts a scripted model server and builds the engine for it (closed before the server). */
  scriptedEngine<Engine extends Closable>(
    options: ScriptedServerOptions,
    makeEngine: (server: ScriptedOpenAIServer, doubles: EngineDoubles) => Engine,
  ): Promise<ScriptedEngine<Engine>>;
}

/** An `EngineTestKit` whose servers and engines are closed after each test of the calling file or block. */
export function engineTestKit(): EngineTestKit {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const track = <Value extends Closable>(closable: Value): Value => {
    cleanups.push(() => closable.close());
    return closable;
  };
  return {
    track,
    rawServer: (handle) => startRawServer(handle, cleanups),
    scriptedServer: async (options) => track(await startScriptedOpenAIServer(options)),
    async scriptedEngine(options, makeEngine) {
      const server = await startScriptedOpenAIServer(options);
      const sleeps: number[] = [];
      const engine = makeEngine(server, {
        random: () => 0.5,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      });
      cleanups.push(
        () => engine.close(),
        () => server.close(),
      );
      return { server, engine, sleeps };
    },
  };
}

async function startRawServer(
  handle: RawHandler,
  cleanups: (() => Promise<void>)[],
): Promise<string> {
  const server = createServer((request, res) => {
    request.resume();
    request.on('end', () => handle(request, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The address of a port on 127.0.0.1 that nothing listens on (connections are refused). */
export async function closedPortUrl(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/** The `EngineError` a promise rejects with (the test fails when it resolves or rejects otherwise). */
export async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

/** Collects every chunk of a stream. */
export async function collectStream(stream: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Reads a stream into `seen` until it ends or fails, calling `afterChunk` after each chunk. */
export async function readStream(
  stream: AsyncIterable<StreamChunk>,
  seen: StreamChunk[],
  afterChunk: (chunk: StreamChunk) => void = () => {},
): Promise<void> {
  for await (const chunk of stream) {
    seen.push(chunk);
    afterChunk(chunk);
  }
}

/** Text of all chunks of one type. */
export function streamedText(
  chunks: readonly StreamChunk[],
  type: 'text_delta' | 'reasoning_delta',
): string {
  return chunks.map((chunk) => (chunk.type === type ? chunk.text : '')).join('');
}

/** The tool calls of a stream, in order. */
export function toolCallsOf(chunks: readonly StreamChunk[]): ToolCall[] {
  return chunks.flatMap((chunk) => (chunk.type === 'tool_call' ? [chunk.toolCall] : []));
}

/** Lets pending I/O and promise callbacks run (no timers involved). */
export async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
