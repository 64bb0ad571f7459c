import {
  bestScore,
  createToolSpec,
  describeError,
  formatRelevance,
  JarvisError,
  type MemoryBackend,
  type MemoryResult,
  relativeRelevance,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from '../../core/index.js';
import { BaseTool } from '../base-tool.js';

/** Most results one call may ask for. */
export const RETRIEVAL_MAX_TOP_K = 50;

/** What the tool answers when it was built without a memory backend. */
export const NO_MEMORY_BACKEND_MESSAGE =
  'No memory backend configured: the retrieval tool has no knowledge base to search. Enable memory (the ' +
  '`[memory]` section of ~/.openjarvis/config.toml, backend `sqlite`) and index documents into it, or create the ' +
  'tool with one: new RetrievalTool({ backend }).';

/** Options of a `RetrievalTool`. */
export interface RetrievalToolOptions {
  /** The memory to search; without one every call fails with a message saying how to enable memory. */
  readonly backend?: MemoryBackend | undefined;
  /** Results per call when the model does not say (default 5, at most 50). */
  readonly topK?: number;
}

/** Searches a memory backend and returns the best matches with their sources and scores. */
export class RetrievalTool extends BaseTool {
  readonly toolId = 'retrieval';
  readonly spec: ToolSpec;
  readonly #backend: MemoryBackend | undefined;
  readonly #topK: number;

  constructor(options: RetrievalToolOptions = {}) {
    super();
    const topK = options.topK ?? 5;
    if (parseTopK(topK) === undefined) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `RetrievalTool topK must be a whole number from 1 to ${RETRIEVAL_MAX_TOP_K} (got ${String(topK)})`,
      });
    }
    if (options.backend !== undefined && typeof options.backend?.retrieve !== 'function') {
      throw new JarvisError({
        code: 'invalid_argument',
        message: 'RetrievalTool backend must be a memory backend (an object with retrieve())',
      });
    }
    this.#backend = options.backend;
    this.#topK = topK;
    this.spec = retrievalSpec(topK);
  }

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    if (this.#backend === undefined) return this.failure(NO_MEMORY_BACKEND_MESSAGE);
    const query = params.query;
    if (typeof query !== 'string' || query.trim() === '') {
      return this.failure(
        'No query provided: give `query`, the text to search for.',
        'invalid_arguments',
      );
    }
    const requested = params.top_k;
    const topK = requested === undefined || requested === null ? this.#topK : parseTopK(requested);
    if (topK === undefined) {
      return this.failure(
        `top_k must be a whole number from 1 to ${RETRIEVAL_MAX_TOP_K} (got ${JSON.stringify(requested)}).`,
        'invalid_arguments',
      );
    }
    let results: readonly MemoryResult[];
    try {
      const signal = context?.signal;
      results = await this.#backend.retrieve(query, {
        topK,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      return this.failure(`Retrieval error: ${describeError(error)}`);
    }
    if (results.length === 0)
      return this.success('No relevant results found.', { metadata: { num_results: 0 } });
    return this.success(formatResults(results), { metadata: { num_results: results.length } });
  }
}

function retrievalSpec(topK: number): ToolSpec {
  return createToolSpec({
    name: 'retrieval',
    description:
      'Search the knowledge base for relevant information. Returns context with sources.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Search query to find relevant information.' },
        top_k: {
          type: ['integer', 'null'],
          description: `Number of results to return (default: ${topK}).`,
          minimum: 1,
          maximum: RETRIEVAL_MAX_TOP_K,
        },
      },
      required: ['query'],
    },
    category: 'memory',
  });
}

/** A whole number from 1 to 50 (numeric strings included, as small models often quote numbers), else undefined. */
function parseTopK(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number)) return undefined;
  return number >= 1 && number <= RETRIEVAL_MAX_TOP_K ? number : undefined;
}

/**
 * `[1] (source: docs/a.md, relevance: 100%)` and the content, for each result, separated by blank lines; the
 * relevance is relative to the best result (raw BM25 values like 0.00000285 mean nothing to a model).
 */
function formatResults(results: readonly MemoryResult[]): string {
  const best = bestScore(results);
  return results
    .map((result, index) => {
      const score = `relevance: ${formatRelevance(relativeRelevance(result.score, best))}`;
      const label = result.source === '' ? `(${score})` : `(source: ${result.source}, ${score})`;
      return `[${index + 1}] ${label}\n${result.content}`;
    })
    .join('\n\n');
}
