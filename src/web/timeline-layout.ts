import type { SpanView } from './api-types.js';
import { formatCount, formatMs } from './format.js';

/** Sizes of the timeline picture, in SVG user units. */
export interface TimelineSize {
  readonly width: number;
  /** Room on the left for each bar's label. */
  readonly labelWidth: number;
  readonly rowHeight: number;
  readonly barHeight: number;
  /** Room at the bottom for the time axis. */
  readonly axisHeight: number;
}

/** The default sizes (the SVG scales to its box). */
export const TIMELINE_SIZE: TimelineSize = {
  width: 720,
  labelWidth: 150,
  rowHeight: 26,
  barHeight: 16,
  axisHeight: 28,
};

/** One model or tool call drawn as a bar over the run's time. */
export interface TimelineBar {
  readonly id: string;
  readonly kind: 'model' | 'tool';
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly failed: boolean;
  /** What hovering or focusing the bar tells: name, latency, tokens or outcome. */
  readonly title: string;
}

/** A mark of the time axis. */
export interface TimelineTick {
  readonly x: number;
  readonly label: string;
}

/** The timeline's picture: bars, axis marks and the overall size. */
export interface TimelineLayout {
  readonly width: number;
  readonly height: number;
  readonly plotLeft: number;
  readonly plotWidth: number;
  readonly axisY: number;
  readonly durationMs: number;
  readonly bars: readonly TimelineBar[];
  readonly ticks: readonly TimelineTick[];
}

/**
 * Lays out a run's model and tool calls as bars, one row each in start order, over a time axis from the run's
 * first span to its last end; a bar is at least 2 units wide so instant calls still show.
 */
export function layoutTimeline(
  spans: readonly SpanView[],
  size: TimelineSize = TIMELINE_SIZE,
): TimelineLayout {
  const calls = spans.filter((span) => span.kind === 'model' || span.kind === 'tool');
  const startMs = Math.min(...spans.map((span) => span.startedMs));
  const endMs = Math.max(...spans.map((span) => Math.max(span.endedMs, span.startedMs)));
  const durationMs = spans.length === 0 ? 0 : Math.max(endMs - startMs, 0);
  const plotLeft = size.labelWidth;
  const plotWidth = size.width - size.labelWidth - 12;
  const scale = durationMs > 0 ? plotWidth / durationMs : 0;
  const bars = calls.map((span, row): TimelineBar => {
    const x = plotLeft + (span.startedMs - startMs) * scale;
    const width = Math.max(2, Math.max(span.endedMs - span.startedMs, 0) * scale);
    return {
      id: span.id,
      kind: span.kind === 'model' ? 'model' : 'tool',
      label: barLabel(span),
      x: round(Math.min(x, plotLeft + plotWidth - 2)),
      y: row * size.rowHeight + (size.rowHeight - size.barHeight) / 2,
      width: round(Math.min(width, plotLeft + plotWidth - x)),
      height: size.barHeight,
      failed: span.status === 'error',
      title: barTitle(span),
    };
  });
  const axisY = calls.length * size.rowHeight + 4;
  const ticks = axisTicks(durationMs).map((ms) => ({
    x: round(plotLeft + ms * scale),
    label: formatMs(ms),
  }));
  const height = axisY + size.axisHeight;
  return { width: size.width, height, plotLeft, plotWidth, axisY, durationMs, bars, ticks };
}

/** Axis marks at a round step (1, 2 or 5 times a power of ten ms), about five of them, from 0. */
export function axisTicks(durationMs: number, about = 5): number[] {
  if (!(durationMs > 0)) return [0];
  const raw = durationMs / about;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let ms = 0; ms <= durationMs + step * 1e-9 && ticks.length < 50; ms += step)
    ticks.push(round(ms));
  return ticks;
}

function barLabel(span: SpanView): string {
  const a = span.attributes;
  if (span.kind === 'tool') return String(a.toolName ?? span.name.replace(/^execute_tool /, ''));
  const turn = typeof a.turn === 'number' ? ` (turn ${a.turn})` : '';
  return `${String(a.model ?? span.name.replace(/^chat /, ''))}${turn}`;
}

/** The bar's tooltip: what was called, how long it took, its tokens (model) or outcome (tool). */
export function barTitle(span: SpanView): string {
  const a = span.attributes;
  const latency = formatMs(
    typeof a.latencySeconds === 'number' ? a.latencySeconds * 1000 : span.endedMs - span.startedMs,
  );
  if (span.kind === 'tool') {
    const name = String(a.toolName ?? span.name);
    const outcome =
      span.status === 'ok' ? 'ok' : `failed${a.errorCode ? ` (${String(a.errorCode)})` : ''}`;
    return `Tool ${name}: ${latency}, ${span.status === 'unfinished' ? 'unfinished' : outcome}`;
  }
  const parts = [`Model call ${String(a.model ?? span.name)}: ${latency}`];
  if (typeof a.promptTokens === 'number' || typeof a.completionTokens === 'number') {
    const prompt = formatCount(Number(a.promptTokens ?? 0));
    const completion = formatCount(Number(a.completionTokens ?? 0));
    parts.push(`${prompt} prompt + ${completion} completion tokens`);
  }
  if (typeof a.ttftSeconds === 'number' && a.ttftSeconds > 0)
    parts.push(`first token after ${formatMs(a.ttftSeconds * 1000)}`);
  if (span.status === 'error') parts.push('failed');
  return parts.join(', ');
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
