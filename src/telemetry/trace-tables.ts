import { JarvisError } from '../core/index.js';
import type { SqliteDatabase, SqliteStatement } from './telemetry-schema.js';
import type {
  FinishedTrace,
  TraceAttributeValue,
  TraceRun,
  TraceRunSummary,
  TraceSpan,
  TraceSpanNode,
} from './trace-types.js';

/** How `listRuns` pages: the newest `limit` runs started before `beforeMs`. */
export interface ListRunsOptions {
  /** Most runs returned (default 20, at most 1000). */
  readonly limit?: number;
  /** Only runs that started before this instant (ms since the Unix epoch): the `startedMs` of a page's last run. */
  readonly beforeMs?: number;
}

const INSERT_RUN = `
INSERT OR REPLACE INTO trace_runs (id, started_ms, ended_ms, agent, model, input_length, turns, model_calls,
  tool_calls, prompt_tokens, completion_tokens, latency_seconds, status, error, dropped_spans)
VALUES (@id, @startedMs, @endedMs, @agent, @model, @inputLength, @turns, @modelCalls, @toolCalls,
  @promptTokens, @completionTokens, @latencySeconds, @status, @error, @droppedSpans)`;

const INSERT_SPAN = `
INSERT INTO trace_spans (run_id, seq, span_id, parent_span_id, kind, name, started_ms, ended_ms, status,
  attributes)
VALUES (@runId, @seq, @spanId, @parentSpanId, @kind, @name, @startedMs, @endedMs, @status, @attributes)`;

const RUN_COLUMNS = `id, started_ms AS startedMs, ended_ms AS endedMs, agent, model,
  input_length AS inputLength, turns, model_calls AS modelCalls, tool_calls AS toolCalls,
  prompt_tokens AS promptTokens, completion_tokens AS completionTokens, latency_seconds AS latencySeconds,
  status, error, dropped_spans AS droppedSpans`;

const LIST_RUNS = `SELECT ${RUN_COLUMNS} FROM trace_runs WHERE started_ms < @beforeMs
  ORDER BY started_ms DESC, rowid DESC LIMIT @limit`;

const FIND_RUN = `SELECT ${RUN_COLUMNS} FROM trace_runs WHERE id = @id OR (length(@id) >= 4 AND
  substr(id, 1, length(@id)) = @id) ORDER BY id = @id DESC LIMIT 2`;

const RUN_SPANS = `SELECT span_id AS spanId, parent_span_id AS parentSpanId, kind, name,
  started_ms AS startedMs, ended_ms AS endedMs, status, attributes FROM trace_spans WHERE run_id = ? ORDER BY seq`;

const PRUNE = `DELETE FROM trace_runs WHERE id IN (SELECT id FROM trace_runs
  ORDER BY started_ms DESC, rowid DESC LIMIT -1 OFFSET ?)`;

type RunRow = Omit<TraceRunSummary, 'error'> & { error: string | null; droppedSpans: number };
/** A stored span as both trace stores read it (SQLite and PostgreSQL): attributes as JSON text. */
export type SpanRow = Omit<TraceSpan, 'parentSpanId' | 'attributes'> & {
  parentSpanId: string | null;
  attributes: string;
};

/** The trace tables of a telemetry database: stores finished runs, lists them and reads one as a tree. */
export class TraceTables {
  readonly #db: SqliteDatabase;
  readonly #statements: Record<
    'insertRun' | 'insertSpan' | 'list' | 'find' | 'spans' | 'prune',
    SqliteStatement
  >;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#statements = {
      insertRun: db.prepare(INSERT_RUN),
      insertSpan: db.prepare(INSERT_SPAN),
      list: db.prepare(LIST_RUNS),
      find: db.prepare(FIND_RUN),
      spans: db.prepare(RUN_SPANS),
      prune: db.prepare(PRUNE),
    };
  }

  /** Stores a finished run and its spans in one transaction, then keeps only the newest `maxRuns` runs. */
  store(trace: FinishedTrace, maxRuns: number): void {
    this.#db.transaction(() => {
      this.insert(trace);
      this.prune(maxRuns);
    })();
  }

  /** Stores a finished run and its spans (a run stored again replaces the old one); call it in a transaction. */
  insert(trace: FinishedTrace): void {
    const { summary } = trace;
    this.#statements.insertRun.run({
      ...summary,
      error: summary.error ?? null,
      droppedSpans: trace.droppedSpans,
    });
    trace.spans.forEach((span, seq) => {
      this.#statements.insertSpan.run({
        runId: summary.id,
        seq,
        ...span,
        parentSpanId: span.parentSpanId ?? null,
        attributes: JSON.stringify(span.attributes),
      });
    });
  }

  /** Deletes all but the newest `maxRuns` runs. */
  prune(maxRuns: number): void {
    this.#statements.prune.run(maxRuns);
  }

  /** The newest runs first. */
  list(options: ListRunsOptions = {}): readonly TraceRunSummary[] {
    const limit = options.limit ?? 20;
    if (!Number.isSafeInteger(limit) || limit < 0 || limit > 1000) {
      throw invalid(`listRuns limit must be a whole number from 0 to 1000 (got ${String(limit)})`);
    }
    const beforeMs = options.beforeMs ?? Number.POSITIVE_INFINITY;
    if (typeof beforeMs !== 'number' || Number.isNaN(beforeMs)) {
      throw invalid('listRuns beforeMs must be a number of milliseconds since the Unix epoch');
    }
    const rows = this.#statements.list.all({ beforeMs, limit }) as RunRow[];
    return rows.map((row) => summaryOf(row));
  }

  /**
   * The run with id `id` (or the one run whose id starts with `id`, 4 characters or more) with its spans as
   * a tree; undefined when there is none; a `JarvisError` when a prefix matches several runs.
   */
  get(id: string): TraceRun | undefined {
    const rows = this.#statements.find.all({ id }) as RunRow[];
    const [first, second] = rows;
    if (first === undefined) return undefined;
    if (second !== undefined && first.id !== id) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `run id '${id}' matches several runs (${first.id}, ${second.id}, …); give more of the id`,
      });
    }
    const spans = (this.#statements.spans.all(first.id) as SpanRow[]).map(spanOf);
    return { ...summaryOf(first), spans: spanTree(spans), droppedSpans: first.droppedSpans };
  }
}

function invalid(message: string): JarvisError {
  return new JarvisError({ code: 'invalid_argument', message });
}

function summaryOf(row: RunRow): TraceRunSummary {
  const { error, droppedSpans: _dropped, ...fields } = row;
  return {
    ...fields,
    status: fields.status === 'ok' ? 'ok' : 'error',
    ...(error === null ? {} : { error }),
  };
}

/** A stored span row as a `TraceSpan` (attributes that do not parse as an object become `{}`). */
export function spanOf(row: SpanRow): TraceSpan {
  const { parentSpanId, attributes, ...fields } = row;
  return {
    ...fields,
    ...(parentSpanId === null ? {} : { parentSpanId }),
    attributes: parseAttributes(attributes),
  };
}

function parseAttributes(text: string): Readonly<Record<string, TraceAttributeValue>> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, TraceAttributeValue>)
      : {};
  } catch {
    return {};
  }
}

/** Spans (in start order) as trees: a span whose parent is missing becomes a root. */
export function spanTree(spans: readonly TraceSpan[]): readonly TraceSpanNode[] {
  const children = new Map<string, TraceSpanNode[]>();
  const roots: TraceSpanNode[] = [];
  const nodes = spans.map((span) => {
    const list: TraceSpanNode[] = [];
    children.set(span.spanId, list);
    return { ...span, children: list };
  });
  for (const node of nodes) {
    const parent = node.parentSpanId === undefined ? undefined : children.get(node.parentSpanId);
    (parent ?? roots).push(node);
  }
  return roots;
}
