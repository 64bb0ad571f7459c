import { createFinder } from '../text-scan.js';
import {
  createCallEntry,
  dropTrailingToken,
  jsonBlockReader,
  type MarkedBlock,
  readMarkedBlocks,
} from './json-list-markers.js';
import type { ToolCallFormat, VisibleText } from './tool-call-format.js';

const START_ACTION = '<|START_ACTION|>';
const END_ACTION = '<|END_ACTION|>';
const START_THINKING = '<|START_THINKING|>';
const END_THINKING = '<|END_THINKING|>';
const START_RESPONSE = '<|START_RESPONSE|>';
const END_RESPONSE = '<|END_RESPONSE|>';
const END_OF_TURN = '<|END_OF_TURN_TOKEN|>';

const commandREntry = createCallEntry({
  nameKeys: ['tool_name', 'name'],
  argumentKeys: ['parameters', 'arguments'],
});

const BLOCKS: readonly MarkedBlock[] = [
  { marker: START_ACTION, read: jsonBlockReader({ close: END_ACTION, entry: commandREntry }) },
];

/**
 * Cohere Command R7B (and Command A):
 * `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …, "parameters": {…}}]<|END_ACTION|>`. The
 * `<|START_THINKING|>…<|END_THINKING|>` plan is dropped from the text, and the text of
 * `<|START_RESPONSE|>…<|END_RESPONSE|>` is kept without its tokens. The model's `tool_call_id`s are
 * positions (`"0"`, `"1"`, restarting every turn), not ids, so they are not passed on.
 */
export const commandRFormat: ToolCallFormat = {
  name: 'command-r7b',
  markers: [START_ACTION],
  read(reply, tools) {
    try {
      if (!reply.includes(START_ACTION)) return undefined;
      const found = readMarkedBlocks(splitThinking(reply).kept, BLOCKS, tools);
      return found === undefined
        ? undefined
        : { content: commandRContent(found.content), calls: found.calls };
    } catch {
      // Only a bug could land here; a reply is never worth a crash.
      return undefined;
    }
  },
  visibleText: commandRVisibleText,
};

const MARKUP = [START_RESPONSE, END_RESPONSE, START_THINKING, END_THINKING, END_OF_TURN] as const;

/**
 * A Command R reply with no call in its markup: the response text as content (an action that did not read stays
 * in it as written), the thinking as reasoning; a reply without the markup is left as written.
 */
function commandRVisibleText(reply: string): VisibleText | undefined {
  try {
    if (!MARKUP.some((token) => reply.includes(token))) return undefined;
    const split = splitThinking(reply);
    const reasoning = split.thinking.map((part) => part.trim()).filter((part) => part !== '');
    const content = commandRContent(reply);
    return reasoning.length === 0 ? { content } : { content, reasoning: reasoning.join('\n') };
  } catch {
    return undefined;
  }
}

/**
 * The text of a Command R reply for the user: the thinking dropped, the response tokens taken away (for
 * a reply with no call, which `commandRFormat.read` leaves alone). Never throws.
 */
export function commandRContent(reply: string): string {
  try {
    const plain = withoutResponseTokens(reply);
    if (plain !== undefined) return plain;
    const visible = splitThinking(reply)
      .kept.replaceAll(START_RESPONSE, '')
      .replaceAll(END_RESPONSE, '');
    return dropTrailingToken(visible, END_OF_TURN).trim();
  } catch {
    return reply;
  }
}

/**
 * `commandRContent` of a text in which every `<` starts a response token (the usual text: a response around
 * prose), or `undefined` for any other text. Each token holds one `<`, at its start, so no thinking or
 * end-of-turn token stands in such a text, its response tokens do not overlap, and taking them out cannot join
 * a new one: the text between them, trimmed, is what taking the tokens out one kind after the other gives.
 */
function withoutResponseTokens(text: string): string | undefined {
  let kept = '';
  let copied = 0;
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', copied)) {
    // The letter after `<|` tells which token can stand here, and a native search from `at` checks it at a
    // fraction of what `startsWith` costs for a token of 16-18 characters; one that is not there ends the loop,
    // so at most one search runs on past `at`.
    const code = text.charCodeAt(at + 2);
    const token = code === 0x53 ? START_RESPONSE : code === 0x45 ? END_RESPONSE : undefined;
    if (token === undefined || text.indexOf(token, at) !== at) return undefined;
    kept += text.slice(copied, at);
    copied = at + token.length;
  }
  return copied === 0 ? text.trim() : (kept + text.slice(copied)).trim();
}

/**
 * `<|START_THINKING|>…<|END_THINKING|>` taken out of the text: the text without it, and the plans' text. An
 * unclosed plan ends at the next action or response.
 */
function splitThinking(text: string): { readonly kept: string; readonly thinking: string[] } {
  if (!text.includes(START_THINKING)) return { kept: text, thinking: [] };
  const nextThinking = createFinder(text, START_THINKING);
  const nextClose = createFinder(text, END_THINKING);
  const nextAction = createFinder(text, START_ACTION);
  const nextResponse = createFinder(text, START_RESPONSE);
  const kept: string[] = [];
  const thinking: string[] = [];
  let copied = 0;
  for (let at = nextThinking(0); at !== -1; at = nextThinking(copied)) {
    kept.push(text.slice(copied, at));
    const from = at + START_THINKING.length;
    const close = nextClose(from);
    const ends = [nextAction(from), nextResponse(from), text.length].filter((end) => end !== -1);
    const end = close === -1 ? Math.min(...ends) : close;
    thinking.push(text.slice(from, end));
    copied = close === -1 ? end : close + END_THINKING.length;
  }
  kept.push(text.slice(copied));
  return { kept: kept.join(''), thinking };
}
