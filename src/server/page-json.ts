import type { MemoryResult } from '../core/index.js';
import { relativeRelevance } from '../core/index.js';
import type { AgentCatalogEntry, ToolCatalogEntry } from '../system/index.js';

/** Longest text (message, tool result, prompt, memory chunk) an `/api` answer holds; longer ones are cut. */
export const MAX_API_TEXT_CHARS = 4000;

/**
 * Every string in `value` redacted and cut to `maxChars` (ending with `…` when cut); object keys are kept. What
 * the page reads came from models, tools and files: nothing secret and nothing unbounded leaves the server.
 */
export function safeJson(
  value: unknown,
  redact: (text: string) => string,
  maxChars = MAX_API_TEXT_CHARS,
): unknown {
  if (typeof value === 'string') {
    const text = redact(value);
    return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
  }
  if (Array.isArray(value)) return value.map((item) => safeJson(item, redact, maxChars));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = safeJson(item, redact, maxChars);
    return out;
  }
  return value;
}

/** A memory search result (as `jarvis memory search --json`): `relevance` is relative to the best result. */
export function memoryResultJson(result: MemoryResult, best: number): Record<string, unknown> {
  return {
    id: result.id,
    score: result.score,
    relevance: Number(relativeRelevance(result.score, best).toFixed(4)),
    source: result.source,
    content: result.content,
    metadata: result.metadata,
  };
}

/** A tool of the catalog (as `jarvis tools list --json`). */
export function toolJson(tool: ToolCatalogEntry): Record<string, unknown> {
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

/** An agent of the catalog (as `jarvis agents list --json`). */
export function agentJson(agent: AgentCatalogEntry): Record<string, unknown> {
  return {
    key: agent.key,
    class_name: agent.className,
    is_default: agent.isDefault,
    is_template: agent.template,
    ...(agent.description === undefined ? {} : { description: agent.description }),
  };
}
