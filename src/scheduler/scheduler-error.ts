import { JarvisError, type JarvisErrorCode } from '../core/index.js';

/** Why a scheduler operation was refused; programs branch on this, people read the message. */
export type SchedulerErrorCode =
  | 'invalid_schedule'
  | 'invalid_task'
  | 'task_not_found'
  | 'invalid_transition'
  | 'task_running'
  | 'tools_not_allowed'
  | 'scheduler_unavailable';

/** A refused scheduler operation (bad schedule, unknown task id, forbidden status change, …). */
export class SchedulerError extends JarvisError {
  declare readonly code: SchedulerErrorCode & JarvisErrorCode;

  constructor(code: SchedulerErrorCode, message: string, cause?: unknown) {
    super(cause === undefined ? { code, message } : { code, message, cause });
  }
}
