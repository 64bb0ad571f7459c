import { JarvisError, safeForTerminal } from '../core/index.js';
import {
  runToDict,
  type ScheduledTask,
  type TaskScheduler,
  taskToDict,
} from '../scheduler/index.js';
import type { JarvisSystem } from '../system/index.js';
import { CliExit, UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type {
  SchedulerCreateFlags,
  SchedulerListFlags,
  SchedulerLogsFlags,
  SchedulerRunNowFlags,
} from './command-flags.js';
import { type JarvisFlags, openJarvis } from './jarvis-options.js';
import {
  formatDeleted,
  formatInstant,
  formatRunTable,
  formatTaskSummary,
  formatTaskTable,
  safeCell,
} from './scheduler-format.js';

/** A status change asked for on the command line. */
export type SchedulerTransition = 'pause' | 'resume' | 'cancel';

/** Scheduler refusals that mean the command was called wrongly (exit 2, not 1). */
const USAGE_CODES = new Set([
  'invalid_schedule',
  'invalid_task',
  'task_not_found',
  'invalid_transition',
]);

const DEFAULT_LOG_LIMIT = 20;

/**
 * Turns a scheduler refusal caused by the user's input (bad schedule, unknown id, forbidden status change) into
 * a `UsageError` (exit 2) whose message says what to do next; other errors pass through.
 */
export function schedulerUsageError(error: unknown): unknown {
  if (!JarvisError.isInstance(error) || !USAGE_CODES.has(error.code)) return error;
  const hint =
    error.code === 'task_not_found' ? '; see the task ids with `jarvis scheduler list`' : '';
  return new UsageError(`${error.message}${hint}`);
}

/** Opens the system, runs `body` with it, and closes everything whatever happens. */
async function withSystem<T>(
  flags: JarvisFlags,
  io: CliIo,
  body: (system: JarvisSystem) => T | Promise<T>,
): Promise<T> {
  const jarvis = await openJarvis(flags, io);
  try {
    return await body(await jarvis.system());
  } catch (error) {
    throw schedulerUsageError(error);
  } finally {
    await jarvis.close();
  }
}

const toJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Tables fit a terminal's width; piped output is not cut to a width (only its free-text column is). */
const tableWidth = (io: CliIo): number | undefined =>
  io.stdout.isTTY ? io.stdout.columns : undefined;

/** Why a task has no runs yet, and how to get one. */
function noRunsMessage(task: ScheduledTask): string {
  const id = safeCell(task.id);
  if (task.status === 'cancelled' || task.status === 'completed')
    return `Task ${id} never ran (it is ${task.status}).\n`;
  const when =
    task.nextRunMs === undefined ? 'no next run' : `next run ${formatInstant(task.nextRunMs)}`;
  return `Task ${id} has not run yet (${safeCell(task.status)}, ${when}); \`jarvis scheduler start\` runs due tasks, \`jarvis scheduler run-now ${id}\` runs it now.\n`;
}

/** Refuses an agent or tool nobody registered before the task is saved (it would fail at every run). */
function checkNames(
  system: JarvisSystem,
  agent: string | undefined,
  tools: readonly string[],
): void {
  const agents = system.agentNames();
  if (agent !== undefined && !agents.includes(agent))
    throw new UsageError(`Unknown agent '${agent}' (--agent). Available: ${agents.join(', ')}`);
  const known = system.toolNames();
  // `<server>.<tool>` names come from MCP servers, which are only connected when a task runs.
  const unknown = tools.find((name) => !name.includes('.') && !known.includes(name));
  if (unknown !== undefined)
    throw new UsageError(`Unknown tool '${unknown}' (--tools). Available: ${known.join(', ')}`);
}

/** `jarvis scheduler create <prompt>`: validates and saves a task, printing its id, status and next run. */
export async function runSchedulerCreate(
  prompt: string,
  flags: SchedulerCreateFlags,
  io: CliIo,
): Promise<void> {
  await withSystem(flags, io, async (system) => {
    const tools = flags.tools ?? [];
    checkNames(system, flags.agent, tools);
    const task = await system.scheduler().createTask({
      prompt,
      scheduleType: flags.type,
      scheduleValue: flags.value,
      agent: flags.agent ?? (tools.length > 0 ? 'orchestrator' : system.config.agent.default),
      tools,
      timezone: flags.timezone,
    });
    io.stdout.write(
      flags.json === true ? toJson(taskToDict(task)) : formatTaskSummary('Created', task),
    );
  });
}

/** `jarvis scheduler list`: a table of the tasks (or `--json`). */
export async function runSchedulerList(flags: SchedulerListFlags, io: CliIo): Promise<void> {
  await withSystem(flags, io, async (system) => {
    const tasks = await system.scheduler().listTasks({ status: flags.status });
    if (flags.json === true) io.stdout.write(toJson(tasks.map(taskToDict)));
    else if (tasks.length === 0)
      io.stderr.write(
        `No ${flags.status === undefined ? '' : `${flags.status} `}scheduled tasks. Create one with: jarvis scheduler create "<prompt>" --type interval --value 3600\n`,
      );
    else io.stdout.write(formatTaskTable(tasks, tableWidth(io)));
  });
}

const TRANSITION_VERBS: Readonly<Record<SchedulerTransition, string>> = {
  pause: 'Paused',
  resume: 'Resumed',
  cancel: 'Cancelled',
};

/** `jarvis scheduler pause|resume|cancel <id>`: one checked status change. */
export async function runSchedulerTransition(
  action: SchedulerTransition,
  taskId: string,
  flags: JarvisFlags,
  io: CliIo,
): Promise<void> {
  await withSystem(flags, io, async (system) => {
    const scheduler: TaskScheduler = system.scheduler();
    const task = await (action === 'pause'
      ? scheduler.pauseTask(taskId)
      : action === 'resume'
        ? scheduler.resumeTask(taskId)
        : scheduler.cancelTask(taskId));
    io.stdout.write(formatTaskSummary(TRANSITION_VERBS[action], task));
  });
}

/**
 * `jarvis scheduler delete <id>`: removes the task and its run history for good. A task with a running
 * occurrence is refused (exit 1, saying what to do); an unknown id is a usage error (exit 2).
 */
export async function runSchedulerDelete(
  taskId: string,
  flags: JarvisFlags,
  io: CliIo,
): Promise<void> {
  await withSystem(flags, io, async (system) => {
    const { task, runsDeleted } = await system.scheduler().deleteTask(taskId);
    io.stdout.write(formatDeleted(task, runsDeleted));
  });
}

/** `jarvis scheduler logs <id>`: the task's recent runs, newest first. */
export async function runSchedulerLogs(
  taskId: string,
  flags: SchedulerLogsFlags,
  io: CliIo,
): Promise<void> {
  await withSystem(flags, io, async (system) => {
    const scheduler = system.scheduler();
    const runs = await scheduler.logs(taskId, flags.limit ?? DEFAULT_LOG_LIMIT);
    if (flags.json === true) io.stdout.write(toJson(runs.map(runToDict)));
    else if (runs.length === 0) io.stderr.write(noRunsMessage(await scheduler.getTask(taskId)));
    else io.stdout.write(formatRunTable(runs, tableWidth(io)));
  });
}

/** `jarvis scheduler run-now <id>`: runs the task once through its agent and prints the answer. */
export async function runSchedulerRunNow(
  taskId: string,
  flags: SchedulerRunNowFlags,
  io: CliIo,
): Promise<void> {
  await withSystem(flags, io, async (system) => {
    const scheduler = system.scheduler();
    await scheduler.getTask(taskId); // an unknown id is a usage error before any engine is looked for
    await system.engine(io.signal);
    const run = await scheduler.runNow(taskId, { signal: io.signal });
    if (flags.json === true) io.stdout.write(toJson(runToDict(run)));
    else if (run.success) {
      const answer = safeForTerminal(run.result);
      io.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
    }
    if (!run.success) {
      const id = safeCell(taskId);
      io.stderr.write(
        `error: task ${id} failed: ${safeForTerminal(run.error)}\n(the run is recorded: \`jarvis scheduler logs ${id}\`)\n`,
      );
      throw new CliExit(1);
    }
  });
}
