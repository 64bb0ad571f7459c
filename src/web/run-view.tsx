import type { ApiClient } from './api-client.js';
import { type RunTrace, runTraceOf, type SpanView } from './api-types.js';
import { formatCount, formatInstant, formatMs, shorten } from './format.js';
import { LoadedView } from './loading.js';
import { RunTimeline } from './run-timeline.js';
import { useApi } from './use-api.js';

/** One run: its summary, its timeline picture, and every span as a table (the picture's text equivalent). */
export function RunView({
  client,
  id,
  onUnauthorized,
}: {
  readonly client: ApiClient;
  readonly id: string;
  readonly onUnauthorized: () => void;
}) {
  const [loaded] = useApi(
    client,
    `/api/runs/${encodeURIComponent(id)}`,
    runTraceOf,
    onUnauthorized,
  );
  return (
    <section aria-labelledby="run-heading">
      <h2 id="run-heading" tabIndex={-1}>
        Run {id.slice(0, 12)}
      </h2>
      <p>
        <a href="#/runs">Back to the run list</a>
      </p>
      <LoadedView loaded={loaded}>{(run) => <RunDetails run={run} />}</LoadedView>
    </section>
  );
}

function RunDetails({ run }: { readonly run: RunTrace }) {
  return (
    <>
      <dl class="facts">
        <dt>Started</dt>
        <dd>{formatInstant(run.startedMs, true)}</dd>
        <dt>Agent</dt>
        <dd>{run.agent}</dd>
        <dt>Model</dt>
        <dd>{run.model || '–'}</dd>
        <dt>Latency</dt>
        <dd>{formatMs(run.latencySeconds * 1000)}</dd>
        <dt>Tokens</dt>
        <dd>
          {formatCount(run.promptTokens)} prompt + {formatCount(run.completionTokens)} completion
        </dd>
        <dt>Status</dt>
        <dd class={run.status === 'ok' ? '' : 'failure'}>
          {run.status}
          {run.error === '' ? '' : `: ${run.error}`}
        </dd>
      </dl>
      <h3>Timeline</h3>
      <RunTimeline spans={run.spans} />
      {run.droppedSpans > 0 ? <p class="hint">{run.droppedSpans} spans were not kept.</p> : null}
      <h3>Spans</h3>
      <SpanTable spans={run.spans} />
    </>
  );
}

function SpanTable({ spans }: { readonly spans: readonly SpanView[] }) {
  const start = spans[0]?.startedMs ?? 0;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Span</th>
          <th scope="col">Starts at</th>
          <th scope="col">Duration</th>
          <th scope="col">Status</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {spans.map((span) => (
          <tr key={span.id}>
            <th scope="row" style={{ paddingLeft: `${0.5 + span.depth}em` }}>
              {span.name}
            </th>
            <td>{formatMs(span.startedMs - start)}</td>
            <td>{formatMs(span.endedMs - span.startedMs)}</td>
            <td class={span.status === 'error' ? 'failure' : ''}>{span.status}</td>
            <td>{shorten(details(span), 300)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A span's facts in a line: tokens of a model call, arguments and result of a tool call. */
function details(span: SpanView): string {
  const a = span.attributes;
  if (span.kind === 'model') {
    const tokens = `${a.promptTokens ?? 0} prompt + ${a.completionTokens ?? 0} completion tokens`;
    return typeof a.ttftSeconds === 'number'
      ? `${tokens}, first token ${formatMs(a.ttftSeconds * 1000)}`
      : tokens;
  }
  if (span.kind === 'tool')
    return `${String(a.arguments ?? '')} → ${String(a.result ?? a.errorCode ?? '')}`;
  if (typeof a.error === 'string') return a.error;
  return '';
}
