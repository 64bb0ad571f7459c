import { SchedulerError } from './scheduler-error.js';
import type { ScheduledTask } from './task-types.js';

/** The names in `tools` that `allowed` does not hold (none when `allowed` is undefined: not limited). */
export function toolsNotAllowed(
  tools: readonly string[],
  allowed: readonly string[] | undefined,
): string[] {
  if (allowed === undefined) return [];
  const permitted = new Set(allowed);
  return [...new Set(tools)].filter((name) => !permitted.has(name));
}

/** Agents that run model-written code on their own (no tool call): scheduling one counts as using `code_interpreter`. */
const CODE_RUNNING_AGENTS: ReadonlySet<string> = new Set(['rlm', 'native_openhands']);

/** The tools a task effectively uses: its tool list, plus `code_interpreter` for an agent that runs code itself. */
export function effectiveTools(tools: readonly string[], agent: string | undefined): string[] {
  const names = [...tools];
  if (agent !== undefined && CODE_RUNNING_AGENTS.has(agent) && !names.includes('code_interpreter'))
    names.push('code_interpreter');
  return names;
}

const listOrNone = (names: readonly string[]): string =>
  names.length === 0 ? 'none' : names.join(', ');

/**
 * The refusal of a task an agent asked for with tools its run does not have (`tools_not_allowed`): names the
 * tools refused and the ones allowed.
 */
export function toolsNotAllowedError(
  refused: readonly string[],
  allowed: readonly string[],
): SchedulerError {
  return new SchedulerError(
    'tools_not_allowed',
    `tool(s) not allowed: ${refused.join(', ')}. A task scheduled by an agent may use only the tools of the run that schedules it (allowed: ${listOrNone(allowed)})`,
  );
}

/**
 * Why a stored task must not run, or undefined when it may: a task created by an agent whose tool list names
 * a tool beyond the allowance recorded when it was created (the database was changed behind the scheduler).
 */
export function runRefusal(task: ScheduledTask, tools: readonly string[]): string | undefined {
  if (task.createdBy !== 'agent') return undefined;
  const allowed = task.allowedTools ?? [];
  const refused = toolsNotAllowed(effectiveTools(tools, task.agent), allowed);
  if (refused.length === 0) return undefined;
  return `refused to run: task ${task.id} was created by an agent allowed only the tools ${listOrNone(allowed)}, but its tool list also names ${refused.join(', ')}`;
}
