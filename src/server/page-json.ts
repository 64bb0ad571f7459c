import type { MemoryResult, Message } from '../core/index.js';
import { relativeRelevance } from '../core/index.js';
import type {
  AgentCatalogEntry,
  SessionInfo,
  SessionTurn,
  ToolCatalogEntry,
} from '../system/index.js';

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

/** `2026-12-01T12:00:00+00:00` (milliseconds as `.123000` when there are any), as the CLI's JSON writes. */
export function isoInstant(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  const milliseconds = iso.slice(20, 23);
  return `${iso.slice(0, 19)}${milliseconds === '000' ? '' : `.${milliseconds}000`}+00:00`;
}

/** A session without its turns (as `jarvis sessions list --json`). */
export function sessionJson(info: SessionInfo): Record<string, unknown> {
  return {
    id: info.id,
    name: info.name ?? null,
    title: info.title,
    turns: info.turnCount,
    created_at: isoInstant(info.createdMs),
    updated_at: isoInstant(info.updatedMs),
    summary:
      info.summary === undefined
        ? null
        : {
            text: info.summary.text,
            through_turn: info.summary.throughSeq,
            updated_at: isoInstant(info.summary.updatedMs),
          },
  };
}

/** A stored turn with its messages (as `jarvis sessions show --json`). */
export function turnJson(turn: SessionTurn): Record<string, unknown> {
  return {
    turn: turn.seq,
    status: turn.status,
    agent: turn.agent,
    model: turn.model,
    engine: turn.engine,
    usage: {
      prompt_tokens: turn.usage.promptTokens,
      completion_tokens: turn.usage.completionTokens,
      total_tokens: turn.usage.totalTokens,
    },
    started_at: isoInstant(turn.startedMs),
    ended_at: isoInstant(turn.endedMs),
    messages: turn.messages.map(messageJson),
  };
}

function messageJson(message: Message): Record<string, unknown> {
  return {
    role: message.role,
    content: message.content,
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.toolCalls === undefined || message.toolCalls.length === 0
      ? {}
      : {
          tool_calls: message.toolCalls.map(({ id, name, arguments: args }) => ({
            id,
            name,
            arguments: args,
          })),
        }),
    ...(message.toolCallId === undefined ? {} : { tool_call_id: message.toolCallId }),
    ...(message.metadata === undefined ? {} : { metadata: message.metadata }),
  };
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
