import type { ToolCard as ToolCardState } from './chat-state.js';
import { formatMs } from './format.js';

/** One tool call of an answer: its name, arguments, result, latency and outcome (a failure shown as one). */
export function ToolCard({ tool }: { readonly tool: ToolCardState }) {
  const outcome =
    tool.status === 'running'
      ? 'running…'
      : tool.status === 'ok'
        ? 'ok'
        : `failed${tool.errorCode === undefined ? '' : ` (${tool.errorCode})`}`;
  return (
    <article class={`tool-card tool-${tool.status}`} aria-label={`Tool call ${tool.name}`}>
      <header>
        <h4>{tool.name}</h4>
        <span class="tool-outcome">{outcome}</span>
        {tool.latencyMs === undefined ? null : (
          <span class="tool-latency">{formatMs(tool.latencyMs)}</span>
        )}
      </header>
      <dl>
        <dt>Arguments</dt>
        <dd>
          <pre>{prettyJson(tool.arguments)}</pre>
        </dd>
        {tool.result === undefined ? null : (
          <>
            <dt>{tool.status === 'failed' ? 'Error' : 'Result'}</dt>
            <dd>
              <pre>{tool.result}</pre>
            </dd>
          </>
        )}
      </dl>
    </article>
  );
}

/** JSON arguments indented; anything else as it came. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
