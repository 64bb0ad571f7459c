import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag, parseNameList } from './cli-options.js';
import type {
  SchedulerCreateFlags,
  SchedulerListFlags,
  SchedulerLogsFlags,
  SchedulerRunNowFlags,
} from './command-flags.js';
import { addJarvisFlags, type JarvisFlags } from './jarvis-flags.js';

const EXAMPLES = `
Examples:
  $ jarvis scheduler create "Summarise the news" --type cron --value "0 9 * * *" --tools web_search
  $ jarvis scheduler create "Check the disk space" --type interval --value 3600
  $ jarvis scheduler create "Weekly report" --type cron --value @weekly
  $ jarvis scheduler create "Remind me to call Ana" --type once --value 2026-03-01T09:00:00Z
  $ jarvis scheduler list --status active
  $ jarvis scheduler logs <task-id> --limit 5
  $ jarvis scheduler delete <task-id>
  $ jarvis scheduler start --engine ollama --model qwen3:8b
`;

const TYPE_HELP =
  "cron: 5 fields such as '0 9 * * 1-5' or @hourly, @daily, @weekly, @monthly, @yearly (UTC unless --timezone); " +
  'interval: seconds such as 3600 (at least 1 unless configured); ' +
  "once: a future ISO 8601 date-time such as '2026-03-01T09:00:00Z' (no offset means UTC)";

/** Registers `jarvis scheduler create|list|pause|resume|cancel|delete|logs|run-now|start`. */
export function registerSchedulerCommand(program: Command, io: CliIo): void {
  const scheduler = program
    .command('scheduler')
    .description('Create, list, change and run scheduled tasks (cron, interval, once).')
    .addHelpText('after', EXAMPLES);
  registerCreate(scheduler, io);
  registerList(scheduler, io);
  for (const action of ['pause', 'resume', 'cancel'] as const)
    registerTransition(scheduler, io, action);
  registerDelete(scheduler, io);
  registerLogs(scheduler, io);
  registerRunNow(scheduler, io);
  registerStart(scheduler, io);
}

function registerCreate(scheduler: Command, io: CliIo): void {
  const command = scheduler
    .command('create')
    .description(
      'Schedule a prompt to run through an agent; prints the task id, status and next run.',
    )
    .argument('<prompt>', 'what the agent is asked at each run')
    .requiredOption('--type <type>', 'schedule type: cron, interval or once')
    .requiredOption('--value <value>', `when it runs (${TYPE_HELP})`)
    .option(
      '--agent <name>',
      'agent that runs it (default: orchestrator with tools, else the configured agent)',
    )
    .option('--tools <names>', 'comma-separated tools the agent may use', parseNameList('--tools'))
    .option(
      '--timezone <zone>',
      'IANA time zone of a cron schedule, e.g. Europe/Berlin (default UTC)',
    )
    .option('--json', 'print the task as JSON');
  addJarvisFlags(command, { engine: false }).action(
    async (prompt: string, flags: SchedulerCreateFlags) => {
      const { runSchedulerCreate } = await import('./scheduler-action.js');
      await runSchedulerCreate(prompt, flags, io);
    },
  );
}

function registerList(scheduler: Command, io: CliIo): void {
  const command = scheduler
    .command('list')
    .description('List the scheduled tasks.')
    .option(
      '--status <status>',
      'only tasks with this status: active, paused, completed, cancelled',
    )
    .option('--json', 'print the tasks as a JSON array');
  addJarvisFlags(command, { engine: false }).action(async (flags: SchedulerListFlags) => {
    const { runSchedulerList } = await import('./scheduler-action.js');
    await runSchedulerList(flags, io);
  });
}

const TRANSITION_HELP = {
  pause: 'Pause an active task (it keeps its next run time).',
  resume: 'Resume a paused task (its next run is computed from now).',
  cancel: 'Cancel a task for good.',
} as const;

function registerTransition(
  scheduler: Command,
  io: CliIo,
  action: keyof typeof TRANSITION_HELP,
): void {
  const command = scheduler
    .command(action)
    .description(TRANSITION_HELP[action])
    .argument('<id>', 'task id (see `jarvis scheduler list`)');
  addJarvisFlags(command, { engine: false }).action(async (taskId: string, flags: JarvisFlags) => {
    const { runSchedulerTransition } = await import('./scheduler-action.js');
    await runSchedulerTransition(action, taskId, flags, io);
  });
}

function registerDelete(scheduler: Command, io: CliIo): void {
  const command = scheduler
    .command('delete')
    .description(
      'Delete a task and its run history for good (refused while it is running; `cancel` keeps the history).',
    )
    .argument('<id>', 'task id (see `jarvis scheduler list`)');
  addJarvisFlags(command, { engine: false }).action(async (taskId: string, flags: JarvisFlags) => {
    const { runSchedulerDelete } = await import('./scheduler-action.js');
    await runSchedulerDelete(taskId, flags, io);
  });
}

function registerLogs(scheduler: Command, io: CliIo): void {
  const command = scheduler
    .command('logs')
    .description("Show a task's recent runs, newest first.")
    .argument('<id>', 'task id (see `jarvis scheduler list`)')
    .option('--limit <n>', 'how many runs (default 20)', parseIntegerFlag('--limit', 1, 10_000))
    .option('--json', 'print the runs as a JSON array');
  addJarvisFlags(command, { engine: false }).action(
    async (taskId: string, flags: SchedulerLogsFlags) => {
      const { runSchedulerLogs } = await import('./scheduler-action.js');
      await runSchedulerLogs(taskId, flags, io);
    },
  );
}

function registerRunNow(scheduler: Command, io: CliIo): void {
  const command = scheduler
    .command('run-now')
    .description(
      'Run a task once now through its agent and print the answer (recorded in its logs).',
    )
    .argument('<id>', 'task id (see `jarvis scheduler list`)')
    .option('--json', 'print the recorded run as JSON');
  addJarvisFlags(command).action(async (taskId: string, flags: SchedulerRunNowFlags) => {
    const { runSchedulerRunNow } = await import('./scheduler-action.js');
    await runSchedulerRunNow(taskId, flags, io);
  });
}

function registerStart(scheduler: Command, io: CliIo): void {
  const command = scheduler
    .command('start')
    .description(
      'Run due tasks in the foreground until Ctrl-C or SIGTERM (several processes may share one database).',
    );
  addJarvisFlags(command).action(async (flags: JarvisFlags) => {
    const { runSchedulerStart } = await import('./scheduler-start.js');
    await runSchedulerStart(flags, io);
  });
}
