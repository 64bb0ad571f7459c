import { describe, expect, it } from 'vitest';
import type { SpanView } from './api-types.js';
import { axisTicks, layoutTimeline, TIMELINE_SIZE } from './timeline-layout.js';

function span(
  fields: Partial<SpanView> & Pick<SpanView, 'id' | 'kind' | 'startedMs' | 'endedMs'>,
): SpanView {
  return { parentId: '', name: '', status: 'ok', attributes: {}, depth: 1, ...fields };
}

const RUN: readonly SpanView[] = [
  span({ id: 'agent', kind: 'agent', startedMs: 1000, endedMs: 2000, depth: 0 }),
  span({ id: 'turn1', kind: 'turn', startedMs: 1000, endedMs: 1500 }),
  span({
    id: 'm1',
    kind: 'model',
    name: 'chat qwen3',
    startedMs: 1000,
    endedMs: 1400,
    attributes: {
      model: 'qwen3',
      turn: 1,
      promptTokens: 1200,
      completionTokens: 12,
      latencySeconds: 0.4,
      ttftSeconds: 0.05,
    },
  }),
  span({
    id: 't1',
    kind: 'tool',
    name: 'execute_tool calculator',
    startedMs: 1400,
    endedMs: 1400,
    status: 'error',
    attributes: { toolName: 'calculator', latencySeconds: 0.002, errorCode: 'tool_failed' },
  }),
  span({
    id: 'm2',
    kind: 'model',
    name: 'chat qwen3',
    startedMs: 1500,
    endedMs: 2000,
    attributes: { model: 'qwen3', turn: 2 },
  }),
];

describe('layoutTimeline', () => {
  it('draws each model and tool call as a bar in its own row, placed and sized by its time', () => {
    const layout = layoutTimeline(RUN);
    expect(layout.durationMs).toBe(1000);
    expect(layout.bars.map((bar) => [bar.id, bar.kind, bar.label])).toEqual([
      ['m1', 'model', 'qwen3 (turn 1)'],
      ['t1', 'tool', 'calculator'],
      ['m2', 'model', 'qwen3 (turn 2)'],
    ]);
    const { plotLeft, plotWidth } = layout;
    const [m1, t1, m2] = layout.bars;
    expect(m1?.x).toBe(plotLeft);
    expect(m1?.width).toBeCloseTo(plotWidth * 0.4, 1);
    expect(t1?.x).toBeCloseTo(plotLeft + plotWidth * 0.4, 1);
    expect(t1?.width).toBe(2);
    expect((m2?.x ?? 0) + (m2?.width ?? 0)).toBeCloseTo(plotLeft + plotWidth, 1);
    expect(new Set(layout.bars.map((bar) => bar.y)).size).toBe(3);
    expect(t1?.failed).toBe(true);
    expect(layout.height).toBe(3 * TIMELINE_SIZE.rowHeight + 4 + TIMELINE_SIZE.axisHeight);
  });

  it('tells latency and tokens of a model call, and the outcome of a tool call, in the bar title', () => {
    const [m1, t1, m2] = layoutTimeline(RUN).bars;
    expect(m1?.title).toBe(
      'Model call qwen3: 400 ms, 1\u2009200 prompt + 12 completion tokens, first token after 50 ms',
    );
    expect(t1?.title).toBe('Tool calculator: 2 ms, failed (tool_failed)');
    expect(m2?.title).toBe('Model call qwen3: 500 ms');
  });

  it('marks the axis at round steps and copes with runs without calls or time', () => {
    const layout = layoutTimeline(RUN);
    expect(layout.ticks.map((tick) => tick.label)).toEqual([
      '0 ms',
      '200 ms',
      '400 ms',
      '600 ms',
      '800 ms',
      '1 s',
    ]);
    expect(layout.ticks.at(-1)?.x).toBeCloseTo(layout.plotLeft + layout.plotWidth, 1);
    expect(layoutTimeline([]).bars).toEqual([]);
    const instant = layoutTimeline([span({ id: 'm', kind: 'model', startedMs: 5, endedMs: 5 })]);
    expect(instant.bars[0]).toMatchObject({ x: instant.plotLeft, width: 2 });
    expect(instant.ticks).toEqual([{ x: instant.plotLeft, label: '0 ms' }]);
  });
});

describe('axisTicks', () => {
  it('steps by 1, 2 or 5 times a power of ten', () => {
    expect(axisTicks(1000)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(axisTicks(7)).toEqual([0, 2, 4, 6]);
    expect(axisTicks(23_000)).toEqual([0, 5000, 10_000, 15_000, 20_000]);
    expect(axisTicks(0)).toEqual([0]);
  });
});
