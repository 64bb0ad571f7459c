import { JarvisError } from '../core/index.js';
import { checkedMessage } from './session-rows.js';
import type { NewSessionTurn } from './session-types.js';
import { pairToolCalls } from './tool-pairing.js';

/** What a session name may look like (and what an error about one says is accepted). */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const NAME_RULE =
  '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit, not starting with "ses_"';

/** A new session id: `ses_` and 16 hex digits (the global Web Crypto: no `node:crypto` to load for it). */
export function newSessionId(): string {
  return `ses_${Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex')}`;
}

/** Whether `text` has the shape of a session id. */
export function isSessionId(text: string): boolean {
  return /^ses_[0-9a-f]{16}$/.test(text);
}

/** The name, checked; `undefined` stays `undefined`. Throws a `JarvisError` saying what is accepted. */
export function checkSessionName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (!NAME_PATTERN.test(name) || name.startsWith('ses_')) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `session name ${JSON.stringify(name.slice(0, 80))} is not accepted; use ${NAME_RULE}`,
    });
  }
  return name;
}

/** The error for a name another session has. */
export function nameTakenError(name: string): JarvisError {
  return new JarvisError({
    code: 'invalid_argument',
    message: `a session named '${name}' already exists; pick another name or resume it with --session ${name}`,
  });
}

/** The error for an id no session has. */
export function noSessionError(id: string): JarvisError {
  return new JarvisError({
    code: 'session_not_found',
    message: `no session '${id.slice(0, 80)}'; \`jarvis sessions list\` shows the sessions`,
  });
}

/** A turn ready to store: messages checked (a `JarvisError` names a wrong one) and tool calls paired. */
export function checkNewTurn(turn: NewSessionTurn): NewSessionTurn {
  if (!Array.isArray(turn.messages) || turn.messages.length === 0) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: 'a session turn needs at least one message (the user message)',
    });
  }
  let messages: ReturnType<typeof pairToolCalls>;
  try {
    messages = pairToolCalls(turn.messages.map(checkedMessage));
  } catch (error) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `a session turn cannot be stored: ${(error as Error).message}`,
      cause: error,
    });
  }
  return { ...turn, messages };
}
