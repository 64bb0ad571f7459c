/** One physical line read from the person (or a pipe), or what stopped the reading. */
export type LineEvent =
  | { readonly type: 'line'; readonly text: string }
  /** Ctrl-C at the prompt; `hadText` when something was typed (or a multi-line input was pending). */
  | { readonly type: 'interrupt'; readonly hadText: boolean }
  /** Ctrl-D on an empty line, or the end of piped input. */
  | { readonly type: 'end' };

/** A complete input of the chat (continued lines joined), or what stopped the reading. */
export type ChatInputEvent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'interrupt'; readonly hadText: boolean }
  | { readonly type: 'end' };

/** Where the chat reads from: a terminal with a line editor, or lines of a pipe. */
export interface ChatInput {
  /** True for a person at a terminal (prompts, Ctrl-C handling, approvals asked). */
  readonly interactive: boolean;
  /** Reads one physical line after showing `prompt` (a pipe shows nothing). */
  readLine(prompt: string): Promise<LineEvent>;
  /** While an answer runs: calls `onInterrupt` on Ctrl-C; returns the function that stops watching. */
  watchInterrupt(onInterrupt: () => void): () => void;
  /** Asks one question on the terminal (an approval) and returns the reply, undefined when cancelled. */
  ask(question: string): Promise<string | undefined>;
  /** Releases the input (raw mode off, stdin paused); safe to call more than once. */
  close(): void;
}

/** The prompt of a new input and of a continued one. */
export const PROMPT = '> ';
/** The prompt of a line that continues the input (after `\` or inside a `"""` block). */
export const CONTINUATION_PROMPT = '… ';

/** The line that opens and closes a multi-line block. */
const BLOCK_FENCE = '"""';

/**
 * Reads one complete input: a line ending in `\` continues on the next line (the `\` becomes a newline), and a
 * line that is `"""` (or starts with it) opens a block that runs to the next line ending in `"""`, kept as
 * typed. Ctrl-C drops what was pending; the end of input in the middle of an input returns what was read.
 */
export async function readChatInput(input: Pick<ChatInput, 'readLine'>): Promise<ChatInputEvent> {
  const parts: string[] = [];
  let inBlock = false;
  for (;;) {
    const event = await input.readLine(parts.length === 0 ? PROMPT : CONTINUATION_PROMPT);
    if (event.type === 'interrupt')
      return { type: 'interrupt', hadText: event.hadText || parts.length > 0 };
    if (event.type === 'end') {
      return parts.length === 0 ? event : { type: 'text', text: parts.join('\n') };
    }
    const step = nextLine(event.text, parts.length === 0, inBlock);
    if (step.text !== undefined) parts.push(step.text);
    inBlock = step.inBlock;
    if (step.done) return { type: 'text', text: parts.join('\n') };
  }
}

interface LineStep {
  /** Text this line adds (undefined: nothing, e.g. a bare fence). */
  readonly text: string | undefined;
  readonly inBlock: boolean;
  readonly done: boolean;
}

/** What one physical line does to the input being read. */
function nextLine(line: string, first: boolean, inBlock: boolean): LineStep {
  if (inBlock) {
    if (!line.trimEnd().endsWith(BLOCK_FENCE)) return { text: line, inBlock: true, done: false };
    const rest = line.trimEnd().slice(0, -BLOCK_FENCE.length);
    return { text: rest === '' ? undefined : rest, inBlock: false, done: true };
  }
  if (first && line.trimStart().startsWith(BLOCK_FENCE)) {
    const rest = line.trimStart().slice(BLOCK_FENCE.length);
    if (rest.trimEnd().endsWith(BLOCK_FENCE) && rest.trim() !== '')
      return { text: rest.trimEnd().slice(0, -BLOCK_FENCE.length), inBlock: false, done: true };
    return { text: rest.trim() === '' ? undefined : rest, inBlock: true, done: false };
  }
  if (line.endsWith('\\')) return { text: line.slice(0, -1), inBlock: false, done: false };
  return { text: line, inBlock: false, done: true };
}
