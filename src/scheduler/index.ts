export { formatIsoInstant, formatIsoSeconds, parseIsoInstant } from './instant.js';
export { type OccurrencePlan, type PlanOptions, planOccurrences } from './occurrence-plan.js';
export {
  POSTGRES_SCHEDULER_MIGRATIONS,
  POSTGRES_SCHEDULER_STORE,
  SCHEDULER_CHANNEL,
} from './postgres-scheduler-schema.js';
export {
  PostgresSchedulerStore,
  type PostgresSchedulerStoreOptions,
} from './postgres-scheduler-store.js';
export { pythonJsonDumps } from './python-json.js';
export {
  DEFAULT_MIN_INTERVAL_MS,
  describeNextRun,
  firstRunMs,
  occurrenceAfterMs,
  parseSchedule,
  SCHEDULE_TYPES,
  type Schedule,
  type ScheduleInput,
  type ScheduleLimits,
  type ScheduleType,
  validateSchedule,
} from './schedule.js';
export { SchedulerError, type SchedulerErrorCode } from './scheduler-error.js';
export {
  type ClaimDueOptions,
  type CompleteRunOptions,
  type DeletedTask,
  expandHome,
  type LeaseOptions,
  SchedulerStore,
  type SchedulerStoreOptions,
  type TaskChange,
} from './scheduler-store.js';
export {
  type ClaimDueNowOptions,
  type ClaimRound,
  type CompletionNow,
  type SchedulerStoreBackend,
  SqliteSchedulerBackend,
  schedulerBackend,
} from './scheduler-store-backend.js';
export {
  CancelScheduledTaskTool,
  createSchedulerTools,
  ListScheduledTasksTool,
  PauseScheduledTaskTool,
  ResumeScheduledTaskTool,
  type SchedulerToolOptions,
  ScheduleTaskTool,
} from './scheduler-tools.js';
export {
  type CreateTaskOptions,
  DEFAULT_MAX_RUNS_PER_TASK_PER_MINUTE,
  type RunTask,
  type RunTaskRequest,
  TaskScheduler,
  type TaskSchedulerOptions,
  toolNames,
} from './task-scheduler.js';
export { nextStatus, type TaskAction } from './task-state.js';
export {
  occurrenceKey,
  type RunClaim,
  type RunStatus,
  type ScheduledTask,
  TASK_ORIGINS,
  TASK_STATUSES,
  type TaskOrigin,
  type TaskRun,
  type TaskStatus,
} from './task-types.js';
export { runToDict, taskToDict } from './task-view.js';
export { systemTimers, type TimerHandle, type Timers } from './timers.js';
