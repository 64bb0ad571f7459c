import { JarvisError, type SchedulerErrorCode } from '../core/index.js';

export type { SchedulerErrorCode } from '../core/index.js';

/** A refused scheduler operation (bad schedule, unknown task id, forbidden status change, …). */
export class SchedulerError extends JarvisError {
  declare readonly code: SchedulerErrorCode;

  constructor(code: SchedulerErrorCode, message: string, cause?: unknown) {
    super(cause === undefined ? { code, message } : { code, message, cause });
  }
}
