import { JarvisError } from './errors.js';
import type { Message } from './messages.js';

/** Options of a `Conversation`. */
export interface ConversationOptions {
  /** Keep at most this many of the latest messages (a positive integer); unlimited when absent. */
  readonly maxMessages?: number;
  readonly messages?: readonly Message[];
}

/** An ordered list of messages, optionally trimmed to the latest `maxMessages`. */
export class Conversation {
  readonly maxMessages: number | undefined;
  #messages: Message[] = [];

  constructor(options: ConversationOptions = {}) {
    const { maxMessages } = options;
    if (maxMessages !== undefined && !(Number.isInteger(maxMessages) && maxMessages > 0)) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `maxMessages must be a positive integer or absent, got ${String(maxMessages)}`,
      });
    }
    this.maxMessages = maxMessages;
    for (const message of options.messages ?? []) this.add(message);
  }

  /** All messages, oldest first (a copy). */
  get messages(): readonly Message[] {
    return [...this.#messages];
  }

  /** Number of messages held. */
  get length(): number {
    return this.#messages.length;
  }

  /** Appends a message, dropping the oldest ones beyond `maxMessages`. */
  add(message: Message): void {
    this.#messages.push(message);
    if (this.maxMessages !== undefined && this.#messages.length > this.maxMessages) {
      this.#messages.splice(0, this.#messages.length - this.maxMessages);
    }
  }

  /** The latest `count` messages (none for 0 or less). */
  window(count: number): readonly Message[] {
    if (count <= 0) return [];
    return this.#messages.slice(-count);
  }
}
