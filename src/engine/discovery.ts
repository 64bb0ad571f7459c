import { setMaxListeners } from 'node:events';
import type { InferenceEngine } from '../core/index.js';

/** An engine chosen to answer (by a key, by discovery, or given ready), with what is known about it. */
export interface ChosenEngine {
  /** The registry key it was chosen under. */
  readonly key: string;
  readonly engine: InferenceEngine;
  /** Where it is reached: a server address, or a model file for in-process engines; unknown for some. */
  readonly address?: string | undefined;
  /** The model it serves, once one has been picked. */
  readonly model?: string | undefined;
}

/** @deprecated Use `ChosenEngine` (discovery returns it, with `address` always set). */
export type DiscoveredEngine = ChosenEngine;

/** One engine that may be running: its key, the address it answers on, and how to make a client for it. */
export interface EngineCandidate {
  readonly key: string;
  readonly address: string;
  readonly create: () => InferenceEngine | Promise<InferenceEngine>;
}

/** Options of `probeEngines`. */
export interface ProbeOptions {
  /** Longest the whole probe may take (default 400 ms); engines not healthy by then count as down. */
  readonly timeoutMs?: number;
  /** Listed first among the healthy engines when it is one of them. */
  readonly preferredKey?: string;
  readonly signal?: AbortSignal;
}

/**
 * Asks every candidate's health at once and returns the healthy ones (preferred key first, then in candidate
 * order). The clients of engines that are down or too slow are closed; the caller owns the returned ones.
 */
export async function probeEngines(
  candidates: readonly EngineCandidate[],
  options: ProbeOptions = {},
): Promise<ChosenEngine[]> {
  const controller = new AbortController();
  // Every probe listens on this one signal (its request and its own wait): more than Node's warning limit of 10.
  setMaxListeners(4 * candidates.length + 10, controller.signal);
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, options.timeoutMs ?? 400);
  try {
    const outcomes = await Promise.all(
      candidates.map((candidate) => probeOne(candidate, controller.signal)),
    );
    const healthy = outcomes.filter((outcome): outcome is ChosenEngine => outcome !== undefined);
    return preferFirst(healthy, options.preferredKey);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

async function probeOne(
  candidate: EngineCandidate,
  signal: AbortSignal,
): Promise<ChosenEngine | undefined> {
  let engine: InferenceEngine;
  try {
    engine = await candidate.create();
  } catch {
    return undefined;
  }
  const healthy = await Promise.race([
    engine.health({ signal }).catch(() => false),
    new Promise<false>((resolve) => {
      if (signal.aborted) resolve(false);
      signal.addEventListener('abort', () => resolve(false), { once: true });
    }),
  ]);
  if (healthy && !signal.aborted) return { key: candidate.key, address: candidate.address, engine };
  await engine.close().catch(() => undefined);
  return undefined;
}

function preferFirst(engines: ChosenEngine[], preferredKey: string | undefined): ChosenEngine[] {
  const index = engines.findIndex((engine) => engine.key === preferredKey);
  if (index <= 0) return engines;
  return [engines[index] as ChosenEngine, ...engines.slice(0, index), ...engines.slice(index + 1)];
}
