import {
  createMessage,
  type EventBus,
  JarvisError,
  type MemoryBackend,
  type MemoryResult,
  type Message,
  Role,
} from '../core/index.js';

/** The first line of the context message, as the Python OpenJarvis wrote it. */
export const CONTEXT_HEADER =
  'The following context was retrieved from the knowledge base. Use it to inform your response, citing sources where applicable:\n\n';

/** Token budget of the context message when none is given. */
export const DEFAULT_MAX_CONTEXT_TOKENS = 2_048;

/** Options of `buildContextMessage` and `injectContext`. */
export interface ContextOptions {
  /** Results to retrieve (default 5). */
  readonly topK?: number;
  /** Most tokens (characters / 4, rounded up) the whole message may take (default 2,048). */
  readonly maxContextTokens?: number;
  /** Results scoring below this are left out (default 0: keep every match). */
  readonly minScore?: number;
  /** Where a `memory_retrieve` event with `contextInjection: true` is published when context is added. */
  readonly bus?: EventBus;
  readonly signal?: AbortSignal;
}

/** Estimated tokens of a text: one per four characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One result as the model sees it: `[Source: path] content`, or just the content when it has no source. */
export function formatContextEntry(result: MemoryResult): string {
  return result.source === '' ? result.content : `[Source: ${result.source}] ${result.content}`;
}

/** Results as the model sees them, separated by blank lines; `''` for none. */
export function formatContext(results: readonly MemoryResult[]): string {
  return results.map(formatContextEntry).join('\n\n');
}

/**
 * Retrieves what `memory` knows about `query` and builds the system message that leads a conversation with it,
 * keeping within `maxContextTokens` by skipping results that would not fit (smaller later ones still can);
 * undefined when nothing relevant fits.
 */
export async function buildContextMessage(
  memory: MemoryBackend,
  query: string,
  options: ContextOptions = {},
): Promise<Message | undefined> {
  const maxContextTokens = options.maxContextTokens ?? DEFAULT_MAX_CONTEXT_TOKENS;
  const minScore = options.minScore ?? 0;
  requireBudget(maxContextTokens, minScore);
  const signal = options.signal;
  const results = await memory.retrieve(query, {
    topK: options.topK ?? 5,
    ...(signal === undefined ? {} : { signal }),
  });
  const chosen = fitToBudget(
    results.filter((result) => result.score >= minScore),
    maxContextTokens,
  );
  if (chosen.length === 0) return undefined;
  const content = CONTEXT_HEADER + formatContext(chosen);
  options.bus?.publish('memory_retrieve', {
    contextInjection: true,
    query,
    numResults: chosen.length,
    totalTokens: estimateTokens(content),
  });
  return createMessage(Role.SYSTEM, content);
}

/**
 * Returns `messages` led by the context message for `query`, as a new array; the same array when nothing
 * relevant was found (the input is never changed).
 */
export async function injectContext(
  memory: MemoryBackend,
  query: string,
  messages: readonly Message[],
  options: ContextOptions = {},
): Promise<readonly Message[]> {
  const context = await buildContextMessage(memory, query, options);
  return context === undefined ? messages : [context, ...messages];
}

/** The results, in order, whose entries fit the budget together with the header and separators. */
function fitToBudget(results: readonly MemoryResult[], maxContextTokens: number): MemoryResult[] {
  const chosen: MemoryResult[] = [];
  let characters = CONTEXT_HEADER.length;
  for (const result of results) {
    const added = (chosen.length === 0 ? 0 : 2) + formatContextEntry(result).length;
    if (Math.ceil((characters + added) / 4) > maxContextTokens) continue;
    chosen.push(result);
    characters += added;
  }
  return chosen;
}

function requireBudget(maxContextTokens: number, minScore: number): void {
  if (!Number.isSafeInteger(maxContextTokens) || maxContextTokens < 1) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `maxContextTokens must be a whole number of at least 1 (got ${String(maxContextTokens)})`,
    });
  }
  if (!Number.isFinite(minScore)) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `minScore must be a finite number (got ${String(minScore)})`,
    });
  }
}
