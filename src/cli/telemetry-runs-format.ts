import { safeForTerminal } from '../core/index.js';
import type { TraceRun, TraceRunSummary, TraceSpanNode } from '../telemetry/index.js';
import { formatTable } from './table.js';

/** Characters of a tool argument or result shown in the timeline. */
const SHOWN_CHARS = 80;

/** Terminal-safe, one line, cut to `max` characters. */
function oneLine(value: unknown, max = SHOWN_CHARS): string {
  const text = safeForTerminal(String(value), { singleLine: true });
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function seconds(value: number): string {
  return value < 10 ? `${value.toFixed(2)}s` : `${value.toFixed(1)}s`;
}

/** `2024-05-01 12:30:05` in UTC. */
function instant(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** The runs as a table: id, started, agent, model, turns, tokens, latency, status. */
export function runsTable(runs: readonly TraceRunSummary[]): string {
  return formatTable(
    runs.map((run) => [
      run.id.slice(0, 12),
      instant(run.startedMs),
      oneLine(run.agent, 24),
      oneLine(run.model, 32),
      String(run.turns),
      String(run.promptTokens + run.completionTokens),
      seconds(run.latencySeconds),
      run.status,
    ]),
    { headers: ['ID', 'STARTED (UTC)', 'AGENT', 'MODEL', 'TURNS', 'TOKENS', 'LATENCY', 'STATUS'] },
  );
}

/** What a span line says after its name. */
function spanDetails(node: TraceSpanNode): string {
  const a = node.attributes;
  const parts = [seconds(Math.max(0, node.endedMs - node.startedMs) / 1000)];
  if (node.kind === 'model') {
    parts.push(`${Number(a.promptTokens ?? 0)}+${Number(a.completionTokens ?? 0)} tokens`);
    if (typeof a.ttftSeconds === 'number' && a.ttftSeconds > 0)
      parts.push(`ttft ${seconds(a.ttftSeconds)}`);
    if (typeof a.finishReason === 'string') parts.push(oneLine(a.finishReason, 20));
  }
  if (node.status !== 'ok') parts.push(node.status.toUpperCase());
  if (typeof a.errorCode === 'string') parts.push(oneLine(a.errorCode, 40));
  return parts.join(', ');
}

function spanLines(node: TraceSpanNode, depth: number): string[] {
  const pad = '  '.repeat(depth);
  const lines = [`${pad}${oneLine(node.name, 60)}  (${spanDetails(node)})`];
  const a = node.attributes;
  if (node.kind === 'tool') {
    lines.push(`${pad}  args:   ${oneLine(a.arguments ?? '')}`);
    if (a.result !== undefined) lines.push(`${pad}  result: ${oneLine(a.result)}`);
  }
  if (typeof a.error === 'string') lines.push(`${pad}  error:  ${oneLine(a.error, 120)}`);
  return [...lines, ...node.children.flatMap((child) => spanLines(child, depth + 1))];
}

/** A run as a text timeline: a header, then the span tree indented with durations, tokens and ttft. */
export function traceTimeline(run: TraceRun): string {
  const header = [
    `Run ${run.id}  ${run.status}`,
    `Started ${instant(run.startedMs)} UTC, ${seconds(run.latencySeconds)}; agent ${oneLine(run.agent, 40)}, model ${oneLine(run.model, 60)}`,
    `${run.turns} turns, ${run.modelCalls} model calls, ${run.toolCalls} tool calls, ${run.promptTokens}+${run.completionTokens} tokens`,
  ];
  if (run.error !== undefined) header.push(`Error: ${oneLine(run.error, 200)}`);
  if (run.droppedSpans > 0)
    header.push(`(${run.droppedSpans} spans beyond the per-run limit not kept)`);
  const body = run.spans.flatMap((node) => spanLines(node, 0));
  return `${[...header, '', ...body].join('\n')}\n`;
}
