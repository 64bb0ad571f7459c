import type { ChosenEngine } from '../engine/index.js';
import { type EngineSelection, probeServers, selectEngine } from './engine-selection.js';

export type { ChosenEngine } from '../engine/index.js';
// The engine choice's public names (DESIGN §4), from the files that define them.
export { createEngine, ENGINE_KEYS, type EngineKey } from './builtin-engines.js';
export type { EngineSelection } from './engine-selection.js';
export {
  type EngineRequestLogCallback,
  type EngineSettings,
  engineAddress,
  engineSettingsFromEnv,
  OPENAI_API_BASE_URL,
  sameServer,
} from './engine-settings.js';

/** Options of `discoverEngines`: the settings, the preferred key, the probe's budget and signal. */
export type DiscoverOptions = EngineSelection;

/** Options of `getEngine`: how the engine is chosen (see `EngineSelection`). */
export type GetEngineOptions = EngineSelection;

/**
 * Picks the engine (see `selectEngine`): an explicit key as given; otherwise the preferred (configured) engine
 * when it is healthy, else another healthy one. When none answers, the error lists every address tried and how
 * to start one.
 */
export function getEngine(options: GetEngineOptions = {}): Promise<ChosenEngine> {
  return selectEngine(options);
}

/** Probes the local engine servers in parallel and returns the healthy ones, the preferred one first. */
export function discoverEngines(options: DiscoverOptions = {}): Promise<ChosenEngine[]> {
  return probeServers(options);
}
