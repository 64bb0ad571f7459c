import type { JarvisOptions } from '../sdk/index.js';
import type { CliIo } from './cli-io.js';
import { untrustedLine } from './cli-output.js';
import { canAsk, promptYesNo } from './prompt-yes-no.js';

/** What the SDK calls before a tool that requires confirmation runs. */
export type ConfirmCallback = NonNullable<JarvisOptions['confirm']>;

/** What a confirmation is asked about (tool name, call id, arguments, spec). */
export type ConfirmationRequest = Parameters<ConfirmCallback>[0];

/** How calls that need confirmation are decided: `--yes` approves, a terminal asks, anything else refuses. */
export type ApprovalMode = 'approve' | 'ask' | 'refuse';

/** Options of `createApproval`. */
export interface ApprovalOptions {
  /** `--yes`: approve every call. */
  readonly yes: boolean;
  readonly io: CliIo;
  /** Runs the prompt with anything drawing on stderr (the spinner) out of its way. */
  readonly around?: <T>(prompt: () => Promise<T>) => Promise<T>;
}

/** The confirmation callback handed to the SDK, and what it refused without asking. */
export interface Approval {
  readonly mode: ApprovalMode;
  readonly confirm: ConfirmCallback;
  /** True when the call with this id was refused because no one could be asked (no terminal, no --yes). */
  refusedUnasked(callId: string): boolean;
}

/** The approval mode for these flags and streams: asking needs both stdin and stderr to be terminals. */
export function approvalMode(yes: boolean, io: CliIo): ApprovalMode {
  if (yes) return 'approve';
  return canAsk(io) ? 'ask' : 'refuse';
}

/** Builds the confirmation callback of `jarvis ask`; prompts are asked one at a time. */
export function createApproval(options: ApprovalOptions): Approval {
  const mode = approvalMode(options.yes, options.io);
  const refused = new Set<string>();
  const around = options.around ?? ((prompt) => prompt());
  let queue: Promise<unknown> = Promise.resolve();
  const confirm: ConfirmCallback = (request) => {
    if (mode === 'approve') return true;
    if (mode === 'refuse') {
      refused.add(request.callId);
      return false;
    }
    const answer = queue.then(() => around(() => askOnTerminal(request, options.io)));
    queue = answer.catch(() => undefined);
    return answer;
  };
  return { mode, confirm, refusedUnasked: (callId) => refused.has(callId) };
}

/**
 * Asks `Allow <tool> with <args>? [y/N]` on stderr (the model's name and arguments with terminal escapes made
 * visible) and reads one line from stdin; only `y`/`yes` approves.
 */
function askOnTerminal(request: ConfirmationRequest, io: CliIo): Promise<boolean> {
  const tool = untrustedLine(request.toolName);
  return promptYesNo(
    `Allow ${tool} with ${untrustedLine(describeArguments(request.arguments))}?`,
    io,
  );
}

/** Tool arguments as compact JSON, cut to a readable length. */
export function describeArguments(args: unknown, maxChars = 200): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? String(args);
  } catch {
    text = String(args);
  }
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
