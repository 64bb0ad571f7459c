import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.js';
import { listData, type RunSummary, runSummaryOf } from './api-types.js';
import { formatCount, formatInstant, formatMs } from './format.js';
import { LoadedView } from './loading.js';
import { useApi } from './use-api.js';

const PAGE = 20;

/** The stored runs, newest first, each linking to its timeline; "Older runs" pages on. */
export function RunsView({
  client,
  onUnauthorized,
}: {
  readonly client: ApiClient;
  readonly onUnauthorized: () => void;
}) {
  const [before, setBefore] = useState<number | undefined>(undefined);
  const path = `/api/runs?limit=${PAGE}${before === undefined ? '' : `&before=${before}`}`;
  const [loaded, reload] = useApi(client, path, readRuns, onUnauthorized);
  return (
    <section aria-labelledby="runs-heading">
      <h2 id="runs-heading" tabIndex={-1}>
        Runs
      </h2>
      <div class="buttons">
        <button type="button" onClick={before === undefined ? reload : () => setBefore(undefined)}>
          {before === undefined ? 'Refresh' : 'Newest runs'}
        </button>
      </div>
      <LoadedView loaded={loaded}>
        {(runs) =>
          runs.length === 0 ? (
            <p class="hint">No runs are stored yet: ask something in the chat.</p>
          ) : (
            <>
              <RunsTable runs={runs} />
              {runs.length === PAGE ? (
                <button type="button" onClick={() => setBefore(runs.at(-1)?.startedMs)}>
                  Older runs
                </button>
              ) : null}
            </>
          )
        }
      </LoadedView>
    </section>
  );
}

function readRuns(body: unknown): RunSummary[] {
  return listData(body).map(runSummaryOf);
}

function RunsTable({ runs }: { readonly runs: readonly RunSummary[] }) {
  return (
    <table>
      <caption class="visually-hidden">Stored runs, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Agent</th>
          <th scope="col">Model</th>
          <th scope="col">Model calls</th>
          <th scope="col">Tool calls</th>
          <th scope="col">Tokens</th>
          <th scope="col">Latency</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id}>
            <th scope="row">
              <a
                href={`#/runs/${encodeURIComponent(run.id)}`}
                aria-label={`Run ${run.id.slice(0, 8)} started ${formatInstant(run.startedMs, true)}`}
              >
                {formatInstant(run.startedMs, true)}
              </a>
            </th>
            <td>{run.agent}</td>
            <td>{run.model}</td>
            <td>{run.modelCalls}</td>
            <td>{run.toolCalls}</td>
            <td>{formatCount(run.promptTokens + run.completionTokens)}</td>
            <td>{formatMs(run.latencySeconds * 1000)}</td>
            <td class={run.status === 'ok' ? '' : 'failure'}>{run.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
