import {
  type AgentResult,
  type GenerateOptions,
  type InferenceEngine,
  type Message,
  type OpenAIFunctionTool,
  toOpenAIFunction,
} from '../core/index.js';
import {
  CalibratedCounter,
  type HistoryReport,
  prepareTurnHistory,
  SessionHistoryCache,
  type SessionStore,
  type TokenCounter,
} from '../sessions/index.js';
import type { JarvisConfig } from './config/index.js';
import type { HistoryPreparer } from './session-turn.js';
import { openConfiguredSessionStore } from './storage-backends.js';
import type { PreparedRun } from './system-run.js';

/** The context window assumed when neither the config nor the engine tells it: small, so history fits anywhere. */
export const DEFAULT_CONTEXT_TOKENS = 8192;

/** The sessions store the config names (SQLite in the home folder by default). */
export function openSessionStore(config: JarvisConfig): SessionStore {
  return openConfiguredSessionStore(config);
}

/** How a system fits each session turn's history, and learns from what the engine reports afterwards. */
export interface SessionHistory {
  readonly prepare: HistoryPreparer;
  /** Learns from a finished turn's reported prompt tokens (one engine call: its prompt is the fitted one). */
  readonly learn: (run: PreparedRun, report: HistoryReport, result: AgentResult) => void;
}

/**
 * Session history for a system: the turns after the running summary, fitted into the model's context
 * (`[sessions] context_tokens`, else what the engine reports, else 8192) with room for the answer, the oldest
 * folded into the summary by the same model. Tokens are counted by the engine's tokenizer where it has one (the
 * embedded engine), else by an estimate calibrated, per engine and model, on the prompt tokens engines report.
 */
export function sessionHistory(store: SessionStore, config: JarvisConfig): SessionHistory {
  const cache = new SessionHistoryCache();
  const counters = new Map<string, EngineTokenCounter>();
  const counterOf = (run: PreparedRun): EngineTokenCounter => {
    const key = `${run.engine.key}\u0000${run.engine.model}`;
    let counter = counters.get(key);
    if (counter === undefined) {
      counter = new EngineTokenCounter(run.engine.engine, run.engine.model);
      counters.set(key, counter);
    }
    return counter;
  };
  const prepare: HistoryPreparer = async (sessionId, run, query, request) => {
    const engine = run.engine.engine;
    const contextTokens =
      config.sessions.contextTokens ??
      (await engine.contextTokens?.(run.engine.model, signalOf(request.signal))) ??
      DEFAULT_CONTEXT_TOKENS;
    return prepareTurnHistory(store, sessionId, {
      systemPrompt: request.systemPrompt ?? config.agent.systemPrompt,
      tools: run.tools.map((tool) => toOpenAIFunction(tool.spec)),
      memoryMessages: run.context.conversation.messages,
      input: [{ role: 'user', content: query }],
      contextTokens,
      answerTokens: request.maxTokens ?? config.sessions.answerTokens,
      counter: counterOf(run),
      engine,
      model: run.engine.model,
      cache,
      signal: request.signal,
    });
  };
  const learn = (run: PreparedRun, report: HistoryReport, result: AgentResult): void => {
    const usage = result.metadata.usage as { promptTokens?: unknown } | undefined;
    if (result.turns !== 1 || typeof usage?.promptTokens !== 'number') return;
    counterOf(run).observe(report.promptTokens, usage.promptTokens);
  };
  return { prepare, learn };
}

/**
 * Counts with the engine's own tokenizer when it has one (`countTokens`), else with an estimate calibrated on the
 * prompt tokens the engine reports (`observe`).
 */
class EngineTokenCounter implements TokenCounter {
  readonly #engine: InferenceEngine;
  readonly #model: string;
  readonly #estimate = new CalibratedCounter();
  /** Whether the engine counted; decided by the first count. */
  #engineCounts: boolean | undefined;

  constructor(engine: InferenceEngine, model: string) {
    this.#engine = engine;
    this.#model = model;
  }

  get epoch(): number {
    return this.#engineCounts === true ? -1 : this.#estimate.epoch;
  }

  async count(messages: readonly Message[], tools: readonly OpenAIFunctionTool[]): Promise<number> {
    if (this.#engineCounts !== false && this.#engine.countTokens !== undefined) {
      const options: GenerateOptions = {
        model: this.#model,
        ...(tools.length > 0 ? { tools } : {}),
      };
      const counted = await this.#engine.countTokens(messages, options).catch(() => undefined);
      this.#engineCounts ??= counted !== undefined;
      if (counted !== undefined) return counted;
    }
    this.#engineCounts = false;
    return this.#estimate.count(messages, tools);
  }

  /** Learns from a call's reported prompt tokens (only used while the engine does not count itself). */
  observe(estimated: number, actual: number): void {
    if (this.#engineCounts !== true) this.#estimate.observe(estimated, actual);
  }
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
