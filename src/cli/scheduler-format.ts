import type { ScheduledTask, TaskRun } from '../sdk/index.js';

/** The narrowest a truncated text column gets, however narrow the terminal. */
const MIN_TEXT_COLUMN = 16;

/** An instant as ISO 8601 in UTC, milliseconds shown only when there are some; `-` when there is none. */
export function formatInstant(epochMs: number | undefined): string {
  if (epochMs === undefined) return '-';
  return new Date(epochMs).toISOString().replace('.000Z', 'Z');
}

/** Puts `text` on one line and cuts it to `maxChars` characters, ending with `…` when cut. */
export function truncate(text: string, maxChars: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= maxChars) return line;
  return `${line.slice(0, Math.max(0, maxChars - 1))}…`;
}

/** The longest the last (free text) column gets when the output is not a terminal. */
const PIPED_TEXT_COLUMN = 80;

/**
 * Renders rows under a header as aligned columns two spaces apart. The last column is cut so a line fits in
 * `widthColumns` (a terminal's width; never narrower than a few characters), or at 80 characters when
 * `widthColumns` is undefined (output to a pipe or file).
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  widthColumns: number | undefined,
): string {
  const fixed = header
    .slice(0, -1)
    .map((title, column) =>
      Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
    );
  const used = fixed.reduce((sum, width) => sum + width + 2, 0);
  const lastWidth =
    widthColumns === undefined ? PIPED_TEXT_COLUMN : Math.max(MIN_TEXT_COLUMN, widthColumns - used);
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column < fixed.length ? cell.padEnd(fixed[column] ?? 0) : truncate(cell, lastWidth),
      )
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** The `jarvis scheduler list` table: id, status, type, value, next run, last run, prompt. */
export function formatTaskTable(
  tasks: readonly ScheduledTask[],
  widthColumns: number | undefined,
): string {
  return formatTable(
    ['ID', 'STATUS', 'TYPE', 'VALUE', 'NEXT RUN', 'LAST RUN', 'PROMPT'],
    tasks.map((task) => [
      task.id,
      task.status,
      task.scheduleType,
      task.timezone === 'UTC' ? task.scheduleValue : `${task.scheduleValue} (${task.timezone})`,
      formatInstant(task.nextRunMs),
      formatInstant(task.lastRunMs),
      task.prompt,
    ]),
    widthColumns,
  );
}

/** The `jarvis scheduler logs` table: scheduled time, start, end, outcome, attempt, result or error. */
export function formatRunTable(runs: readonly TaskRun[], widthColumns: number | undefined): string {
  return formatTable(
    ['SCHEDULED', 'STARTED', 'FINISHED', 'STATUS', 'ATTEMPT', 'RESULT / ERROR'],
    runs.map((run) => [
      formatInstant(run.scheduledForMs),
      formatInstant(run.startedMs),
      formatInstant(run.finishedMs),
      run.status,
      String(run.attempt),
      run.success ? run.result : run.error,
    ]),
    widthColumns,
  );
}

/** What `create`, `pause`, `resume` and `cancel` print about the task they changed. */
export function formatTaskSummary(verb: string, task: ScheduledTask): string {
  return [
    `${verb} task ${task.id}`,
    `  status:   ${task.status}`,
    `  schedule: ${task.scheduleType} ${task.scheduleValue}${task.timezone === 'UTC' ? '' : ` (${task.timezone})`}`,
    `  next run: ${task.nextRunMs === undefined ? 'none' : formatInstant(task.nextRunMs)}`,
    `  agent:    ${task.agent}${task.tools === '' ? '' : ` (tools: ${task.tools})`}`,
    '',
  ].join('\n');
}
