import {
  createToolSpec,
  describeError,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from '../core/index.js';
import { BaseTool } from '../tools/index.js';
import { formatIsoInstant } from './instant.js';
import { pythonJsonDumps } from './python-json.js';
import { SchedulerError } from './scheduler-error.js';
import { splitToolList } from './store-rows.js';
import type { TaskScheduler } from './task-scheduler.js';
import { taskToDict } from './task-view.js';
import { effectiveTools, toolsNotAllowed } from './tool-allowance.js';

/** Options of the scheduler tools: the scheduler they act on (without one every call fails clearly). */
export interface SchedulerToolOptions {
  readonly scheduler?: TaskScheduler | undefined;
}

const UNAVAILABLE =
  'Scheduler not available: the scheduler is unavailable because no TaskScheduler is configured.';

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** The tools of the calling run; a call that does not say (no executor context) gets none. */
const runTools = (context: ToolContext | undefined): readonly string[] =>
  context?.runToolNames ?? [];

/** Common part of the five tools: the injected scheduler and the "unavailable" failure. */
abstract class SchedulerTool extends BaseTool {
  protected readonly scheduler: TaskScheduler | undefined;

  constructor(options: SchedulerToolOptions = {}) {
    super();
    this.scheduler = options.scheduler;
  }

  protected unavailable(suffix = ''): ToolResult {
    return this.failure(`${UNAVAILABLE}${suffix}`);
  }
}

/**
 * `schedule_task`: creates a cron, interval or once task; returns `{"task_id", "next_run", "status"}` as JSON.
 * The task is recorded as created by an agent: it may name only tools of the calling run (`runToolNames` of
 * the tool context) and its interval is at least the scheduler's default minimum.
 */
export class ScheduleTaskTool extends SchedulerTool {
  readonly toolId = 'schedule_task';
  readonly spec: ToolSpec = createToolSpec({
    name: 'schedule_task',
    description:
      'Schedule a task for future or recurring execution. Supports cron expressions, interval (seconds), or one-time ISO datetime scheduling.',
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'The prompt/query to execute on schedule.' },
        schedule_type: {
          type: 'string',
          description: "Schedule type: 'cron', 'interval', or 'once'.",
          enum: ['cron', 'interval', 'once'],
        },
        schedule_value: {
          type: 'string',
          description:
            "Schedule value: cron expression ('0 9 * * 1-5', or @hourly, @daily, @weekly, @monthly, @yearly), seconds for interval ('3600'; at least 1), or a future ISO datetime for once ('2026-03-01T09:00:00Z'; no offset means UTC).",
        },
        agent: {
          type: 'string',
          description:
            'Agent to use for execution (default: simple; orchestrator when tools are given).',
        },
        tools: {
          type: 'string',
          description:
            "Comma-separated tool names for agent (e.g. 'calculator,think'); only tools you have yourself are allowed.",
        },
        timezone: {
          type: 'string',
          description: "IANA time zone of a cron expression, e.g. 'Europe/Berlin' (default: UTC).",
        },
      },
      required: ['prompt', 'schedule_type', 'schedule_value'],
    },
    category: 'scheduler',
  });

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    if (this.scheduler === undefined) return this.unavailable(' Cannot schedule tasks.');
    const prompt = text(params.prompt);
    const scheduleType = text(params.schedule_type);
    const scheduleValue = text(params.schedule_value);
    if (prompt === undefined || scheduleType === undefined || scheduleValue === undefined)
      return this.failure(
        'Missing required parameters: prompt, schedule_type, schedule_value.',
        'invalid_arguments',
      );
    try {
      const task = await this.scheduler.createTask({
        prompt,
        scheduleType,
        scheduleValue,
        agent: text(params.agent),
        tools: typeof params.tools === 'string' ? params.tools : undefined,
        timezone: text(params.timezone),
        createdBy: 'agent',
        allowedTools: runTools(context),
      });
      const nextRun = task.nextRunMs === undefined ? null : formatIsoInstant(task.nextRunMs);
      return this.success(
        pythonJsonDumps({ task_id: task.id, next_run: nextRun, status: task.status }),
      );
    } catch (error) {
      return this.failure(`Failed to schedule task: ${describeError(error)}`);
    }
  }
}

/** `list_scheduled_tasks`: the tasks as a JSON array, optionally filtered by status. */
export class ListScheduledTasksTool extends SchedulerTool {
  readonly toolId = 'list_scheduled_tasks';
  readonly spec: ToolSpec = createToolSpec({
    name: 'list_scheduled_tasks',
    description: 'List all scheduled tasks, optionally filtered by status.',
    parameters: {
      type: 'object',
      properties: {
        status: {
          type: 'string',
          description: "Filter by status: 'active', 'paused', 'completed', 'cancelled'.",
        },
      },
    },
    category: 'scheduler',
  });

  override async execute(params: ToolArguments): Promise<ToolResult> {
    if (this.scheduler === undefined) return this.unavailable();
    try {
      const tasks = await this.scheduler.listTasks({ status: text(params.status) });
      return this.success(pythonJsonDumps(tasks.map(taskToDict)));
    } catch (error) {
      return this.failure(`Failed to list tasks: ${describeError(error)}`);
    }
  }
}

type TaskAction = 'pause' | 'resume' | 'cancel';
const PAST: Readonly<Record<TaskAction, string>> = {
  pause: 'paused',
  resume: 'resumed',
  cancel: 'cancelled',
};

/**
 * Why an agent may not resume a task: it names tools the calling run does not have (resuming it would run
 * them). Undefined when it may.
 */
async function resumeRefusal(
  scheduler: TaskScheduler,
  taskId: string,
  context: ToolContext | undefined,
): Promise<string | undefined> {
  const task = await scheduler.getTask(taskId);
  const refused = toolsNotAllowed(
    effectiveTools(splitToolList(task.tools), task.agent),
    runTools(context),
  );
  if (refused.length === 0) return undefined;
  return `Failed to resume task: task ${taskId} uses tool(s) not allowed: ${refused.join(', ')}. An agent may resume only tasks whose tools its own run has; a person can resume it with \`jarvis scheduler resume ${taskId}\`.`;
}

/** Shared body of the pause, resume and cancel tools. */
abstract class TaskActionTool extends SchedulerTool {
  protected abstract readonly action: TaskAction;

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    if (this.scheduler === undefined) return this.unavailable();
    const taskId = text(params.task_id);
    if (taskId === undefined)
      return this.failure('Missing required parameter: task_id.', 'invalid_arguments');
    try {
      if (this.action === 'pause') await this.scheduler.pauseTask(taskId);
      else if (this.action === 'resume') {
        const refusal = await resumeRefusal(this.scheduler, taskId, context);
        if (refusal !== undefined) return this.failure(refusal);
        await this.scheduler.resumeTask(taskId);
      } else await this.scheduler.cancelTask(taskId);
      return this.success(`Task ${taskId} ${PAST[this.action]}.`);
    } catch (error) {
      if (error instanceof SchedulerError && error.code === 'task_not_found')
        return this.failure(`Task not found: ${taskId}`);
      return this.failure(`Failed to ${this.action} task: ${describeError(error)}`);
    }
  }
}

function taskIdSpec(name: string, description: string, verb: string): ToolSpec {
  return createToolSpec({
    name,
    description,
    parameters: {
      type: 'object',
      properties: { task_id: { type: 'string', description: `ID of the task to ${verb}.` } },
      required: ['task_id'],
    },
    category: 'scheduler',
  });
}

/** `pause_scheduled_task`: pauses an active task. */
export class PauseScheduledTaskTool extends TaskActionTool {
  readonly toolId = 'pause_scheduled_task';
  protected readonly action = 'pause';
  readonly spec = taskIdSpec('pause_scheduled_task', 'Pause an active scheduled task.', 'pause');
}

/**
 * `resume_scheduled_task`: resumes a paused task; its next run is computed from now. Refused for a task naming
 * tools the calling run does not have.
 */
export class ResumeScheduledTaskTool extends TaskActionTool {
  readonly toolId = 'resume_scheduled_task';
  protected readonly action = 'resume';
  readonly spec = taskIdSpec('resume_scheduled_task', 'Resume a paused scheduled task.', 'resume');
}

/** `cancel_scheduled_task`: cancels a task for good. */
export class CancelScheduledTaskTool extends TaskActionTool {
  readonly toolId = 'cancel_scheduled_task';
  protected readonly action = 'cancel';
  readonly spec = taskIdSpec('cancel_scheduled_task', 'Cancel a scheduled task.', 'cancel');
}

/** The five scheduler tools acting on one scheduler. */
export function createSchedulerTools(options: SchedulerToolOptions = {}): BaseTool[] {
  return [
    new ScheduleTaskTool(options),
    new ListScheduledTasksTool(options),
    new PauseScheduledTaskTool(options),
    new ResumeScheduledTaskTool(options),
    new CancelScheduledTaskTool(options),
  ];
}
