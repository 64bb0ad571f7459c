import { setMaxListeners } from 'node:events';
import type { InferenceEngine } from '../core/index.js';

/** One engine that may be running: its key, the address it answers on, and how to make a client for it. */
export interface EngineCandidate {
  readonly key: string;
  readonly address: string;
  readonly create: () => InferenceEngine;
}

/** A candidate that answered its health check. */
export interface DiscoveredEngine {
  readonly key: string;
  readonly address: string;
  readonly engine: InferenceEngine;
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
): Promise<DiscoveredEngine[]> {
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
    const healthy = outcomes.filter(
      (outcome): outcome is DiscoveredEngine => outcome !== undefined,
    );
    return preferFirst(healthy, options.preferredKey);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

async function probeOne(
  candidate: EngineCandidate,
  signal: AbortSignal,
): Promise<DiscoveredEngine | undefined> {
  let engine: InferenceEngine;
  try {
    engine = candidate.create();
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

function preferFirst(
  engines: DiscoveredEngine[],
  preferredKey: string | undefined,
): DiscoveredEngine[] {
  const index = engines.findIndex((engine) => engine.key === preferredKey);
  if (index <= 0) return engines;
  return [
    engines[index] as DiscoveredEngine,
    ...engines.slice(0, index),
    ...engines.slice(index + 1),
  ];
}
