import { useState } from 'preact/hooks';
import type { SpanView } from './api-types.js';
import { layoutTimeline, type TimelineBar } from './timeline-layout.js';

/**
 * A run's model and tool calls as bars over time. Each bar has a `<title>` (the browser's tooltip) and can be
 * focused with the keyboard; the focused or hovered bar's facts show under the picture.
 */
export function RunTimeline({ spans }: { readonly spans: readonly SpanView[] }) {
  const layout = layoutTimeline(spans);
  const [shown, setShown] = useState<TimelineBar | undefined>(undefined);
  if (layout.bars.length === 0) return <p class="hint">This run made no model or tool calls.</p>;
  const { plotLeft, plotWidth, axisY } = layout;
  // One listener for every bar: the focused or hovered bar names itself in `data-bar`.
  const show = (event: Event) => {
    const index = (event.target as Element | null)?.getAttribute('data-bar');
    const bar = index === null || index === undefined ? undefined : layout.bars[Number(index)];
    if (bar !== undefined) setShown(bar);
  };
  return (
    <figure class="timeline">
      <svg
        role="img"
        aria-label="Run timeline"
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width="100%"
        preserveAspectRatio="xMinYMin meet"
        onFocusCapture={show}
        onPointerOver={show}
      >
        {layout.bars.map((bar, index) => (
          <g key={bar.id}>
            <text x={plotLeft - 8} y={bar.y + bar.height - 4} text-anchor="end" class="bar-label">
              {bar.label}
            </text>
            <rect
              x={bar.x}
              y={bar.y}
              width={bar.width}
              height={bar.height}
              rx={3}
              data-kind={bar.kind}
              class={`bar bar-${bar.kind}${bar.failed ? ' bar-failed' : ''}`}
              data-bar={index}
              // Lowercase: on SVG elements Preact sets attributes as written, and only `tabindex` makes one focusable.
              tabindex={0}
              aria-label={bar.title}
            >
              <title>{bar.title}</title>
            </rect>
          </g>
        ))}
        <line x1={plotLeft} y1={axisY} x2={plotLeft + plotWidth} y2={axisY} class="axis" />
        {layout.ticks.map((tick) => (
          <g key={tick.x}>
            <line x1={tick.x} y1={axisY} x2={tick.x} y2={axisY + 5} class="axis" />
            <text x={tick.x} y={axisY + 18} text-anchor="middle" class="tick-label">
              {tick.label}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>
        <span class="legend legend-model">Model call</span>{' '}
        <span class="legend legend-tool">Tool call</span>{' '}
        <span class="legend legend-failed">Failed</span>
        <p class="bar-detail" aria-live="polite">
          {shown === undefined
            ? 'Hover over or focus a bar for its latency and tokens.'
            : shown.title}
        </p>
      </figcaption>
    </figure>
  );
}
