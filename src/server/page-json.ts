import type { AgentCatalogEntry } from '../system/index.js';

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
