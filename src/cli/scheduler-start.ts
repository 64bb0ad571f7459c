import type { EventBus, JarvisEvent } from '../core/index.js';
import type { CliIo, CliStream } from './cli-io.js';
import { type JarvisFlags, openJarvis } from './jarvis-options.js';
import { schedulerUsageError } from './scheduler-action.js';
import { formatInstant, safeCell, truncate } from './scheduler-format.js';

const PREVIEW_CHARS = 80;

/** Longest wait between checks that keeps the process alive while the scheduler sleeps (about 12 days). */
const KEEP_ALIVE_MS = 2 ** 30;

/** A scheduler event (its payload is the scheduler's snake_case record). */
type SchedulerEvent = JarvisEvent<'scheduler_task_start'> | JarvisEvent<'scheduler_task_end'>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The event's ISO 8601 instant (`…:48.337000+00:00`) in the CLI's one format; as is (made safe) when unreadable. */
function instant(value: unknown): string {
  const epochMs = Date.parse(text(value));
  return Number.isNaN(epochMs) ? safeCell(text(value)) : formatInstant(epochMs);
}

/** One stderr line for a task that started: when, which task and occurrence, and its prompt. */
export function formatTaskStart(event: JarvisEvent<'scheduler_task_start'>): string {
  const { data } = event;
  return `${formatInstant(event.timestampMs)} task ${safeCell(text(data.task_id))} started (scheduled ${instant(data.scheduled_for)}, attempt ${String(data.attempt)}): ${truncate(text(data.prompt), PREVIEW_CHARS)}\n`;
}

/** One stderr line for a task that ended: succeeded or failed, how long it took, and its answer or error. */
export function formatTaskEnd(
  event: JarvisEvent<'scheduler_task_end'>,
  startedMs: number | undefined,
): string {
  const { data } = event;
  const took =
    startedMs === undefined ? '' : ` in ${((event.timestampMs - startedMs) / 1000).toFixed(2)} s`;
  const outcome =
    data.success === true
      ? `succeeded${took}: ${truncate(text(data.result), PREVIEW_CHARS)}`
      : `failed${took}: ${truncate(text(data.error), PREVIEW_CHARS)}`;
  const lost =
    data.recorded === false ? ' (not recorded: another scheduler process took it over)' : '';
  return `${formatInstant(event.timestampMs)} task ${safeCell(text(data.task_id))} ${outcome}${lost}\n`;
}

/** Prints a line per task start and end on `stream`; returns the unsubscribe function. */
export function reportSchedulerActivity(bus: EventBus, stream: CliStream): () => void {
  const started = new Map<string, number>();
  const keyOf = (event: SchedulerEvent) => event.data.occurrence_key;
  const offStart = bus.subscribe('scheduler_task_start', (event) => {
    started.set(keyOf(event), event.timestampMs);
    stream.write(formatTaskStart(event));
  });
  const offEnd = bus.subscribe('scheduler_task_end', (event) => {
    const key = keyOf(event);
    stream.write(formatTaskEnd(event, started.get(key)));
    started.delete(key);
  });
  return () => {
    offStart();
    offEnd();
  };
}

/**
 * Resolves when `signal` aborts (SIGINT/SIGTERM) or `ended` settles, whichever comes first, keeping the process
 * alive meanwhile.
 */
export function untilAborted(signal: AbortSignal, ended?: Promise<unknown>): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => undefined, KEEP_ALIVE_MS);
    const finish = () => {
      clearInterval(keepAlive);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    signal.addEventListener('abort', finish, { once: true });
    ended?.then(finish, finish);
  });
}

/**
 * `jarvis scheduler start`: runs due tasks in the foreground until SIGINT/SIGTERM, then stops firing, waits
 * (bounded) for running tasks and closes everything.
 */
export async function runSchedulerStart(flags: JarvisFlags, io: CliIo): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  try {
    const system = await jarvis.system();
    const engine = await system.engine(io.signal); // no engine: say so now, not at every run
    const scheduler = system.scheduler();
    const active = (await scheduler.listTasks({ status: 'active' })).length;
    io.stderr.write(
      `Scheduler running with ${active} active task(s) (engine ${engine.key}, model ${engine.model}; database ${scheduler.store.location}). Press Ctrl-C to stop.\n`,
    );
    const unsubscribe = reportSchedulerActivity(system.bus, io.stderr);
    await scheduler.start();
    await untilAborted(io.signal);
    const running = scheduler.runningCount;
    io.stderr.write(
      running === 0
        ? 'Stopping.\n'
        : `Stopping: waiting for ${running} running task(s) to finish (Ctrl-C again quits now; unfinished runs are retried by the next start)…\n`,
    );
    await scheduler.stop();
    unsubscribe();
  } catch (error) {
    throw schedulerUsageError(error);
  } finally {
    await jarvis.close();
  }
  io.stderr.write('Scheduler stopped.\n');
}
