import type { AgentResult } from '../core/index.js';
import { untrustedLine } from './cli-output.js';

/** Why a run ended without a final answer: its turn limit, or the loop guard (the same call over and over). */
export type StopReason = 'max_turns' | 'loop_detected';

/** What the loop guard reported when it stopped a run (the `loop_guard_triggered` event). */
export interface LoopStop {
  readonly toolName: string;
  readonly repeats: number;
}

/** The stop reason of a run from its metadata (`max_turns_exceeded`, `loop_detected`), or undefined. */
export function stopReasonOf(metadata: Readonly<Record<string, unknown>>): StopReason | undefined {
  if (metadata.loop_detected === true) return 'loop_detected';
  if (metadata.max_turns_exceeded === true) return 'max_turns';
  return undefined;
}

/** The agents' own notices that stand in for a missing answer (they are not the model's words). */
const AGENT_NOTICES: readonly RegExp[] = [
  /^Maximum turns reached without a final answer\.$/,
  /^Stopped: the model called the tool '[\s\S]*' with the same arguments \d+ times in a row without reaching an answer\.$/,
];

/**
 * The text of a result that belongs on stdout: its content, except for a stopped run whose content is only the
 * agent's notice (that goes to stderr as the stop message instead).
 */
export function answerTextOf(result: AgentResult): string {
  if (stopReasonOf(result.metadata) === undefined) return result.content;
  const content = result.content.trim();
  return AGENT_NOTICES.some((notice) => notice.test(content)) ? '' : result.content;
}

/** The line printed on stderr for a stopped run: what happened and what to do. */
export function stopMessage(reason: StopReason, turns: number, loop?: LoopStop): string {
  if (reason === 'max_turns') {
    const used = turns === 1 ? '1 turn' : `${turns} turns`;
    return `stopped: no final answer after ${used} (the turn limit); raise it with --max-turns <n> (or [agent] max_turns), or ask a narrower question\n`;
  }
  const what =
    loop === undefined
      ? 'the model repeated the same tool call'
      : `the model called '${untrustedLine(loop.toolName)}' with the same arguments ${loop.repeats} times in a row`;
  return `stopped: ${what} without reaching an answer (loop guard); rephrase the question or try another model\n`;
}
