import type { JsonSchema } from '../core/index.js';
import type { ToolCatalogEntry } from './tool-catalog.js';

// The JSON of a catalog tool, shared by `jarvis tools list --json` and the server's /api/tools.

/** A tool of the catalog as JSON (snake_case keys). */
export interface ToolJson {
  readonly name: string;
  readonly category: string;
  readonly description: string;
  readonly requires_confirmation: boolean;
  /** Estimated US dollars per call. */
  readonly cost_estimate: number;
  /** Estimated seconds per call. */
  readonly latency_estimate: number;
  readonly parameters: JsonSchema;
  /** Present when the tool could not be built. */
  readonly problem?: string;
}

/** One catalog entry as JSON. */
export function toolJson(tool: ToolCatalogEntry): ToolJson {
  return {
    name: tool.name,
    category: tool.category,
    description: tool.description,
    requires_confirmation: tool.requiresConfirmation,
    cost_estimate: tool.costEstimate,
    latency_estimate: tool.latencyEstimate,
    parameters: tool.parameters,
    ...(tool.problem === undefined ? {} : { problem: tool.problem }),
  };
}
