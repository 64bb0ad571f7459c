import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InferenceEngine, Message, OpenAIFunctionTool, ToolCall } from '../core/index.js';
import {
  assistantReply,
  errorReply,
  ScriptedEngine,
  type ScriptedEngineStaticReply,
} from '../testing/index.js';
import { SUMMARY_PREFIX } from './history-fit.js';
import {
  describeHistoryReport,
  type PrepareTurnHistoryOptions,
  prepareTurnHistory,
  SessionHistoryCache,
} from './session-history.js';
import type { SessionStore } from './session-store.js';
import type { NewSessionTurn } from './session-types.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { SUMMARY_INSTRUCTION } from './summarize.js';
import {
  CalibratedCounter,
  estimateCounter,
  estimateTokens,
  type TokenCounter,
} from './token-count.js';
import { isPaired } from './tool-pairing.js';

const CONTEXT = 4096;
const ANSWER = 1024;
const SYSTEM = 'You are Jarvis, a helpful assistant. Answer briefly and use tools when they help.';
const MEMORY: Message[] = [
  { role: 'system', content: 'Memory: the person lives in Lyon and likes tea.' },
];
const TOOLS: OpenAIFunctionTool[] = ['web_search', 'calculator'].map((name) => ({
  type: 'function',
  function: {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  },
}));

// A real SQLite file; on tmpfs where there is one, so its fsyncs (about 16 ms each on this disk) stay cheap.
const TEMP_ROOT = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const folders: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function openStore(dbPath?: string): SqliteSessionStore {
  let path = dbPath;
  if (path === undefined) {
    const folder = mkdtempSync(join(TEMP_ROOT, 'jarvis-history-'));
    folders.push(folder);
    path = join(folder, 'sessions.db');
  }
  const store = new SqliteSessionStore({
    dbPath: path,
    clock: { nowMs: () => 1_000, monotonicMs: () => 0 },
  });
  stores.push(store);
  return store;
}

/** A small deterministic random source (mulberry32). */
function random(seed: number): (min: number, max: number) => number {
  let state = seed >>> 0;
  return (min, max) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    return min + Math.floor(unit * (max - min + 1));
  };
}

const words = (count: number, seed: string) =>
  `${seed} ${'lorem ipsum dolor '.repeat(Math.ceil(count / 18))}`.slice(0, count);

/** The messages of turn `n` after its user message: tool calls with long results, huge ones, or a plain answer. */
function runMessages(n: number, rand: (min: number, max: number) => number): Message[] {
  const huge = n === 17 || n === 41;
  const calls = huge ? 1 : n % 3 === 0 ? rand(1, 2) : 0;
  const messages: Message[] = [];
  if (calls > 0) {
    const toolCalls: ToolCall[] = Array.from({ length: calls }, (_, i) => ({
      id: `t${n}_${i}`,
      name: i === 0 ? 'web_search' : 'calculator',
      arguments: JSON.stringify({ q: words(rand(10, 120), `query ${n}`) }),
    }));
    messages.push({ role: 'assistant', content: '', toolCalls });
    // Turn 30 was cut short: its second result is missing, and the store pairs it.
    const answered = n === 30 ? toolCalls.slice(0, 1) : toolCalls;
    for (const call of answered) {
      const size = huge ? 40_000 : rand(500, 3500);
      messages.push({
        role: 'tool',
        content: words(size, `result ${call.id}`),
        toolCallId: call.id,
        name: call.name,
      });
    }
  }
  messages.push({ role: 'assistant', content: words(rand(40, 900), `answer ${n}`) });
  return messages;
}

/** The summarizer's reply: names the newest turn folded, and is sometimes far too long. */
function summaryReply(messages: readonly Message[]): ScriptedEngineStaticReply {
  const seqs = [...(messages[1]?.content ?? '').matchAll(/\[turn (\d+)/g)].map((m) => Number(m[1]));
  const last = Math.max(...seqs);
  const padding = last % 4 === 0 ? ' detail'.repeat(2000) : '';
  return assistantReply(`Through turn ${last}: the person asked questions and searched.${padding}`);
}

interface ScriptedModel {
  readonly engine: InferenceEngine;
  readonly script: ScriptedEngine;
  failSummaries: boolean;
}

/** A model whose replies are scripted as requests come: a summary for summarizing requests, else an answer. */
function scriptedModel(): ScriptedModel {
  const script = new ScriptedEngine([], { engineId: 'scripted' });
  const model: ScriptedModel = {
    script,
    failSummaries: false,
    engine: {
      engineId: 'scripted',
      generate: (messages, options) => {
        const summarizing = messages[0]?.content === SUMMARY_INSTRUCTION;
        if (!summarizing) script.enqueue(assistantReply('ok'));
        else if (model.failSummaries) script.enqueue(errorReply('engine_unavailable'));
        else script.enqueue(summaryReply(messages));
        return script.generate(messages, options);
      },
      stream: (messages, options) => script.stream(messages, options),
      listModels: () => script.listModels(),
      health: () => script.health(),
      close: () => script.close(),
    },
  };
  return model;
}

function options(
  model: ScriptedModel,
  counter: TokenCounter,
  input: string,
  cache?: SessionHistoryCache,
) {
  return {
    systemPrompt: SYSTEM,
    tools: TOOLS,
    memoryMessages: MEMORY,
    input: [{ role: 'user', content: input }],
    contextTokens: CONTEXT,
    answerTokens: ANSWER,
    counter,
    engine: model.engine,
    model: 'small-4k',
    maxSummaryTokens: 400,
    cache,
  } satisfies PrepareTurnHistoryOptions;
}

function turnOf(messages: Message[]): NewSessionTurn {
  return {
    messages,
    agent: 'orchestrator',
    model: 'small-4k',
    engine: 'scripted',
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    status: 'completed',
    startedMs: 1_000,
    endedMs: 1_001,
  };
}

/** Tokens as the scripted engine reports them: content and tool-call arguments, 4 characters each. */
function reportedTokens(messages: readonly Message[]): number {
  let characters = 0;
  for (const message of messages) {
    characters += message.content.length;
    for (const call of message.toolCalls ?? []) characters += call.arguments.length;
  }
  return Math.ceil(characters / 4);
}

const withoutSummary = (messages: readonly Message[]) =>
  messages.filter((message) => !message.content.startsWith(SUMMARY_PREFIX));

describe('prepareTurnHistory: a 60-turn session with a 4,096-token model', () => {
  it.each([
    ['the bytes estimate', () => estimateCounter],
    ['a calibrated estimate', () => new CalibratedCounter()],
  ])(
    'never sends a request over budget and keeps tool calls paired (%s)',
    async (_, makeCounter) => {
      const counter: TokenCounter & Partial<Pick<CalibratedCounter, 'observe'>> = makeCounter();
      const store = openStore();
      const session = await store.create();
      const model = scriptedModel();
      const cache = new SessionHistoryCache();
      const rand = random(17);
      let through = 0;
      let folded = 0;
      let newestTooLarge = 0;
      for (let n = 1; n <= 60; n += 1) {
        const input = `question ${n}: ${words(rand(20, 600), 'please')}`;
        const prepared = await prepareTurnHistory(
          store,
          session.id,
          options(model, counter, input, cache),
        );
        const { report } = prepared;
        const request: Message[] = [
          { role: 'system', content: SYSTEM },
          ...MEMORY,
          ...prepared.messages,
          { role: 'user', content: input },
        ];
        // Counted with the session's counter, the request plus the answer reserve fits.
        expect(report.promptTokens + ANSWER).toBeLessThanOrEqual(CONTEXT);
        expect(await counter.count(request, TOOLS)).toBeLessThanOrEqual(report.promptTokens);
        expect(report.fits).toBe(true);
        expect(isPaired(request)).toBe(true);
        // The summary only moves forward, and the history starts right after it.
        expect(report.summaryThroughSeq).toBeGreaterThanOrEqual(through);
        through = report.summaryThroughSeq;
        folded += report.foldedTurns;
        if (report.newestTurnTooLarge) newestTooLarge += 1;
        expect(report.droppedTurns).toBe(0);
        const stored = await store.turns(session.id, { afterSeq: through });
        expect(withoutSummary(prepared.messages)).toEqual(
          stored.slice(stored.length - report.keptTurns).flatMap((t) => t.messages),
        );
        // The newest turn is sent whole whenever it fits on its own.
        const newest = stored.at(-1);
        if (newest !== undefined && estimateTokens(newest.messages) < 1200) {
          expect(prepared.messages.slice(-newest.messages.length)).toEqual(newest.messages);
        }
        const result = await model.engine.generate(request, {
          model: 'small-4k',
          tools: TOOLS,
          maxTokens: ANSWER,
        });
        counter.observe?.(report.promptTokens, result.usage.promptTokens);
        await store.appendTurn(
          session.id,
          turnOf([{ role: 'user', content: input }, ...runMessages(n, rand)]),
        );
      }
      // Every request the model got (answers and summaries) fit its context by its own count.
      for (const call of model.script.calls) {
        expect(reportedTokens(call.messages) + (call.options.maxTokens ?? 0)).toBeLessThanOrEqual(
          CONTEXT,
        );
        expect(isPaired(call.messages)).toBe(true);
      }
      const summaries = model.script.calls.filter(
        (call) => call.messages[0]?.content === SUMMARY_INSTRUCTION,
      );
      expect(summaries.length).toBeGreaterThan(3);
      expect(summaries.length).toBeLessThan(40);
      expect(newestTooLarge).toBe(2); // turns 17 and 41, each folded on the next turn
      expect(through).toBeGreaterThan(45);
      expect(folded).toBe(through);
      const info = await store.find(session.id);
      expect(info?.summary?.throughSeq).toBe(through);
      expect(
        estimateTokens([{ role: 'system', content: `${SUMMARY_PREFIX}${info?.summary?.text}` }]),
      ).toBeLessThanOrEqual(400);
      model.script.assertAllStepsConsumed();
    },
  );
});

/** A session whose turns no longer fit: 12 turns of about 500 tokens each. */
async function fullSession(store: SessionStore): Promise<string> {
  const session = await store.create();
  for (let n = 1; n <= 12; n += 1) {
    await store.appendTurn(
      session.id,
      turnOf([
        { role: 'user', content: `q${n} ${'x'.repeat(700)}` },
        { role: 'assistant', content: 'y'.repeat(800) },
      ]),
    );
  }
  return session.id;
}

describe('prepareTurnHistory', () => {
  it('goes on when the summarizer fails: the oldest turns are left out, said in the report, and folded later', async () => {
    const store = openStore();
    const id = await fullSession(store);
    const model = scriptedModel();
    model.failSummaries = true;
    const failed = await prepareTurnHistory(store, id, options(model, estimateCounter, 'next'));
    expect(failed.report).toMatchObject({
      summaryUpdated: false,
      foldedTurns: 0,
      summaryThroughSeq: 0,
      fits: true,
    });
    expect(failed.report.droppedTurns).toBeGreaterThan(0);
    expect(failed.report.droppedTurns + failed.report.keptTurns).toBe(12);
    expect(failed.report.summaryError).toContain('engine_unavailable');
    expect(failed.report.promptTokens + ANSWER).toBeLessThanOrEqual(CONTEXT);
    expect(failed.messages[0]?.content).toBe(
      `q${12 - failed.report.keptTurns + 1} ${'x'.repeat(700)}`,
    );
    expect(describeHistoryReport(failed.report)).toMatch(
      /^History: \d+ older turns left out without a summary \(summarizing failed: .*engine_unavailable/,
    );
    expect((await store.find(id))?.summary).toBeUndefined();

    model.failSummaries = false;
    const recovered = await prepareTurnHistory(store, id, options(model, estimateCounter, 'next'));
    expect(recovered.report).toMatchObject({
      summaryUpdated: true,
      droppedTurns: 0,
      summaryError: undefined,
    });
    expect(recovered.report.foldedTurns).toBe(failed.report.droppedTurns);
    expect(recovered.messages[0]?.role).toBe('system');
    expect(recovered.messages[0]?.content).toContain(
      `Through turn ${recovered.report.foldedTurns}`,
    );
    expect((await store.find(id))?.summary?.throughSeq).toBe(recovered.report.foldedTurns);
    expect(describeHistoryReport(recovered.report)).toMatch(
      /folded into the session summary; kept \d+ turns \(\d+ \+ 1024 of 4096 tokens\)\.$/,
    );
    model.script.assertAllStepsConsumed();
  });

  it('sends everything and calls no model while the session fits', async () => {
    const store = openStore();
    const session = await store.create();
    await store.appendTurn(
      session.id,
      turnOf([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]),
    );
    const model = scriptedModel();
    const prepared = await prepareTurnHistory(
      store,
      session.name ?? session.id,
      options(model, estimateCounter, 'again'),
    );
    expect(prepared.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    expect(prepared.report).toMatchObject({
      keptTurns: 1,
      foldedTurns: 0,
      droppedTurns: 0,
      summaryUpdated: false,
    });
    expect(describeHistoryReport(prepared.report)).toBeUndefined();
    expect(model.script.calls).toEqual([]);
  });

  it("reads only the turns written since the last turn, including another writer's, with a cache", async () => {
    const store = openStore();
    const id = await fullSession(store);
    const afterSeqs: number[] = [];
    const spied: SessionStore = Object.assign(Object.create(store) as SessionStore, {
      turns: (sessionId: string, opts?: { afterSeq?: number }) => {
        afterSeqs.push(opts?.afterSeq ?? 0);
        return store.turns(sessionId, opts);
      },
      find: (idOrName: string) => store.find(idOrName),
      setSummary: (sessionId: string, summary: Parameters<SessionStore['setSummary']>[1]) =>
        store.setSummary(sessionId, summary),
    });
    const model = scriptedModel();
    const cache = new SessionHistoryCache();
    const first = await prepareTurnHistory(spied, id, options(model, estimateCounter, 'a', cache));
    const through = first.report.summaryThroughSeq;
    const other = openStore(store.location);
    await other.appendTurn(
      id,
      turnOf([
        { role: 'user', content: 'from another process' },
        { role: 'assistant', content: 'ok' },
      ]),
    );
    const second = await prepareTurnHistory(spied, id, options(model, estimateCounter, 'b', cache));
    expect(afterSeqs).toEqual([0, 12]);
    expect(second.messages.at(-2)).toEqual({ role: 'user', content: 'from another process' });
    const uncached = await prepareTurnHistory(store, id, options(model, estimateCounter, 'b'));
    expect(uncached).toEqual(second);
    expect(second.report.summaryThroughSeq).toBe(through);
  });

  it('refuses a session that does not exist, by name', async () => {
    const store = openStore();
    await expect(
      prepareTurnHistory(store, 'nope', options(scriptedModel(), estimateCounter, 'x')),
    ).rejects.toMatchObject({ code: 'session_not_found' });
  });
});
