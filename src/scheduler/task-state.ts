import { SchedulerError } from './scheduler-error.js';
import type { ScheduledTask, TaskStatus } from './task-types.js';

/** A status change a person or an agent may ask for. */
export type TaskAction = 'pause' | 'resume' | 'cancel';

const ALLOWED_FROM: Readonly<Record<TaskAction, readonly TaskStatus[]>> = {
  pause: ['active'],
  resume: ['paused'],
  cancel: ['active', 'paused'],
};

const TARGET: Readonly<Record<TaskAction, TaskStatus>> = {
  pause: 'paused',
  resume: 'active',
  cancel: 'cancelled',
};

/** The status `action` leads to from the task's status; throws a `SchedulerError` naming what is allowed. */
export function nextStatus(
  task: Pick<ScheduledTask, 'id' | 'status'>,
  action: TaskAction,
): TaskStatus {
  const allowed = ALLOWED_FROM[action];
  if (!allowed.includes(task.status)) {
    const final =
      task.status === 'cancelled' || task.status === 'completed' ? ' (a final status)' : '';
    throw new SchedulerError(
      'invalid_transition',
      `Cannot ${action} task ${task.id}: it is ${task.status}${final}; only ${allowed.join(' or ')} tasks can be ${TARGET[action] === 'active' ? 'resumed' : TARGET[action]}`,
    );
  }
  return TARGET[action];
}
