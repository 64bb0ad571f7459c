import { count, object, text } from './chat-protocol.js';

type Fields = Readonly<Record<string, unknown>>;

/** A stored run as the runs list shows it (from `GET /api/runs`). */
export interface RunSummary {
  readonly id: string;
  readonly startedMs: number;
  readonly endedMs: number;
  readonly agent: string;
  readonly model: string;
  readonly turns: number;
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencySeconds: number;
  readonly status: string;
  readonly error: string;
}

/** One span of a run's trace, flattened out of the tree (`parentId` '' for the root). */
export interface SpanView {
  readonly id: string;
  readonly parentId: string;
  readonly kind: string;
  readonly name: string;
  readonly startedMs: number;
  readonly endedMs: number;
  readonly status: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** How deep in the tree (0 for the run's own span). */
  readonly depth: number;
}

/** A run with its spans in start order (from `GET /api/runs/:id`). */
export interface RunTrace extends RunSummary {
  readonly spans: readonly SpanView[];
  readonly droppedSpans: number;
}

/** A scheduled task with its recent runs (from `GET /api/tasks`). */
export interface TaskView {
  readonly id: string;
  readonly prompt: string;
  readonly scheduleType: string;
  readonly scheduleValue: string;
  readonly status: string;
  readonly nextRun: string;
  readonly lastRun: string;
  readonly agent: string;
  readonly recentRuns: readonly TaskRunView[];
}

/** One run of a scheduled task. */
export interface TaskRunView {
  readonly id: string;
  readonly scheduledFor: string;
  readonly status: string;
  readonly success: boolean | undefined;
  readonly result: string;
  readonly error: string;
}

/** A memory search result (from `GET /api/memory/search`). */
export interface MemoryHit {
  readonly id: string;
  readonly source: string;
  readonly content: string;
  readonly relevance: number;
}

/** The `data` array of a list answer ([] when it has none). */
export function listData(body: unknown): Fields[] {
  const data = object({ body }, 'body').data;
  return Array.isArray(data) ? data.filter(isFields) : [];
}

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A run summary out of its JSON. */
export function runSummaryOf(fields: Fields): RunSummary {
  return {
    id: text(fields, 'id'),
    startedMs: count(fields, 'started_ms'),
    endedMs: count(fields, 'ended_ms'),
    agent: text(fields, 'agent'),
    model: text(fields, 'model'),
    turns: count(fields, 'turns'),
    modelCalls: count(fields, 'model_calls'),
    toolCalls: count(fields, 'tool_calls'),
    promptTokens: count(fields, 'prompt_tokens'),
    completionTokens: count(fields, 'completion_tokens'),
    latencySeconds: count(fields, 'latency_seconds'),
    status: text(fields, 'status'),
    error: text(fields, 'error'),
  };
}

/** A run's trace out of its JSON: the span tree flattened in start order (at most 5000 spans). */
export function runTraceOf(body: unknown): RunTrace {
  const fields = isFields(body) ? body : {};
  const spans: SpanView[] = [];
  const visit = (node: unknown, parentId: string, depth: number) => {
    if (!isFields(node) || spans.length >= 5000 || depth > 50) return;
    const span = spanOf(node, parentId, depth);
    spans.push(span);
    const children = node.children;
    if (Array.isArray(children)) for (const child of children) visit(child, span.id, depth + 1);
  };
  const roots = fields.spans;
  if (Array.isArray(roots)) for (const root of roots) visit(root, '', 0);
  spans.sort((a, b) => a.startedMs - b.startedMs || a.depth - b.depth);
  return { ...runSummaryOf(fields), spans, droppedSpans: count(fields, 'dropped_spans') };
}

function spanOf(node: Fields, parentId: string, depth: number): SpanView {
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(object(node, 'attributes'))) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      attributes[key] = value;
  }
  return {
    id: text(node, 'span_id'),
    parentId,
    kind: text(node, 'kind'),
    name: text(node, 'name'),
    startedMs: count(node, 'started_ms'),
    endedMs: count(node, 'ended_ms'),
    status: text(node, 'status'),
    attributes,
    depth,
  };
}

/** A scheduled task out of its JSON. */
export function taskOf(fields: Fields): TaskView {
  const runs = fields.recent_runs;
  return {
    id: text(fields, 'id'),
    prompt: text(fields, 'prompt'),
    scheduleType: text(fields, 'schedule_type'),
    scheduleValue: text(fields, 'schedule_value'),
    status: text(fields, 'status'),
    nextRun: text(fields, 'next_run'),
    lastRun: text(fields, 'last_run'),
    agent: text(fields, 'agent'),
    recentRuns: Array.isArray(runs) ? runs.filter(isFields).map(taskRunOf) : [],
  };
}

function taskRunOf(fields: Fields): TaskRunView {
  const success = fields.success;
  return {
    id: String(fields.id ?? ''),
    scheduledFor: text(fields, 'scheduled_for'),
    status: text(fields, 'status'),
    success: typeof success === 'boolean' ? success : undefined,
    result: text(fields, 'result'),
    error: text(fields, 'error'),
  };
}

/** A memory search result out of its JSON. */
export function memoryHitOf(fields: Fields): MemoryHit {
  return {
    id: String(fields.id ?? ''),
    source: text(fields, 'source'),
    content: text(fields, 'content'),
    relevance: count(fields, 'relevance'),
  };
}
