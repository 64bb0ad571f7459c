import type { ApiClient } from './api-client.js';
import { listData, type TaskView, taskOf } from './api-types.js';
import { formatIso, shorten } from './format.js';
import { LoadedView } from './loading.js';
import { useApi } from './use-api.js';

/** The scheduled tasks: schedule, next run, and the results of their recent runs. */
export function TasksView({
  client,
  onUnauthorized,
}: {
  readonly client: ApiClient;
  readonly onUnauthorized: () => void;
}) {
  const [loaded, reload] = useApi(client, '/api/tasks', readTasks, onUnauthorized);
  return (
    <section aria-labelledby="tasks-heading">
      <h2 id="tasks-heading" tabIndex={-1}>
        Tasks
      </h2>
      <div class="buttons">
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <LoadedView loaded={loaded}>
        {(tasks) =>
          tasks.length === 0 ? (
            <p class="hint">
              No scheduled tasks. Create one with <code>jarvis scheduler create</code>.
            </p>
          ) : (
            <ul class="cards">
              {tasks.map((task) => (
                <li key={task.id}>
                  <TaskCard task={task} />
                </li>
              ))}
            </ul>
          )
        }
      </LoadedView>
    </section>
  );
}

function readTasks(body: unknown): TaskView[] {
  return listData(body).map(taskOf);
}

function TaskCard({ task }: { readonly task: TaskView }) {
  const headingId = `task-${task.id}`;
  return (
    <article class="task" aria-labelledby={headingId}>
      <h3 id={headingId}>{shorten(task.prompt, 120)}</h3>
      <dl class="facts">
        <dt>Schedule</dt>
        <dd>
          {task.scheduleType} {task.scheduleValue}
        </dd>
        <dt>Status</dt>
        <dd>{task.status}</dd>
        <dt>Next run</dt>
        <dd>{formatIso(task.nextRun)}</dd>
        <dt>Last run</dt>
        <dd>{formatIso(task.lastRun)}</dd>
        <dt>Agent</dt>
        <dd>{task.agent || '–'}</dd>
      </dl>
      {task.recentRuns.length === 0 ? (
        <p class="hint">No runs yet.</p>
      ) : (
        <table>
          <caption>Recent runs</caption>
          <thead>
            <tr>
              <th scope="col">Scheduled for</th>
              <th scope="col">Status</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {task.recentRuns.map((run) => (
              <tr key={run.id}>
                <td>{formatIso(run.scheduledFor)}</td>
                <td class={run.success === false ? 'failure' : ''}>{run.status}</td>
                <td>{shorten(run.success === false ? run.error : run.result, 300)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
