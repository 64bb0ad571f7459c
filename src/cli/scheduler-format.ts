import { safeForTerminal } from '../core/index.js';
import type { ScheduledTask, TaskRun } from '../scheduler/index.js';

/** The narrowest a truncated text column gets, however narrow the terminal. */
const MIN_TEXT_COLUMN = 16;

/**
 * An instant for people, the one format of every scheduler command: ISO 8601 in UTC with its offset, to the
 * second (`2026-12-01T12:00:00+00:00`, what the JSON output's instants start with); `-` when there is none.
 */
export function formatInstant(epochMs: number | undefined): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '-';
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace('.000Z', '+00:00');
}

/** Stored text (prompts, schedule values, answers, errors) on one line, escape sequences shown visibly. */
export function safeCell(text: string): string {
  return safeForTerminal(text, { singleLine: true });
}

/**
 * Puts `text` on one line (whitespace runs become one space; escape sequences are shown visibly) and cuts it to
 * `maxChars` characters, ending with `…` when cut.
 */
export function truncate(text: string, maxChars: number): string {
  const line = safeForTerminal(text.replace(/\s+/g, ' ').trim(), { singleLine: true });
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
  unsafeRows: readonly (readonly string[])[],
  widthColumns: number | undefined,
): string {
  const last = header.length - 1;
  const rows = unsafeRows.map((row) =>
    row.map((cell, column) => (column < last ? safeCell(cell) : cell)),
  );
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

/** Who created a task, and for an agent's task the tools it may use (the line only agent tasks get). */
function originLine(task: ScheduledTask): string[] {
  if (task.createdBy !== 'agent') return [];
  const allowed = task.allowedTools ?? [];
  return [
    `  created:  by an agent (may use: ${allowed.length === 0 ? 'no tools' : safeCell(allowed.join(', '))})`,
  ];
}

/** What `create`, `pause`, `resume` and `cancel` print about the task they changed. */
export function formatTaskSummary(verb: string, task: ScheduledTask): string {
  const zone = task.timezone === 'UTC' ? '' : ` (${safeCell(task.timezone)})`;
  return [
    `${verb} task ${safeCell(task.id)}`,
    `  status:   ${safeCell(task.status)}`,
    `  schedule: ${safeCell(task.scheduleType)} ${safeCell(task.scheduleValue)}${zone}`,
    `  next run: ${task.nextRunMs === undefined ? 'none' : formatInstant(task.nextRunMs)}`,
    `  agent:    ${safeCell(task.agent)}${task.tools === '' ? '' : ` (tools: ${safeCell(task.tools)})`}`,
    ...originLine(task),
    '',
  ].join('\n');
}

/** What `delete` prints: the task removed and how many run-log entries went with it. */
export function formatDeleted(task: ScheduledTask, runsDeleted: number): string {
  return `Deleted task ${safeCell(task.id)} (${safeCell(task.status)}, ${safeCell(task.scheduleType)} ${safeCell(task.scheduleValue)}) and its ${runsDeleted} run-log entr${runsDeleted === 1 ? 'y' : 'ies'}.\n`;
}
