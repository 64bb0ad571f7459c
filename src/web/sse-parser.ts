/** One Server-Sent Event: its `event` name (`message` when none was given) and its data lines joined. */
export interface SseMessage {
  readonly event: string;
  readonly data: string;
}

/**
 * Parses a Server-Sent Events stream piece by piece (pieces may split lines anywhere): `push` returns the events
 * completed by a piece, `end` the last one if the stream stopped without its blank line. Comments (`:`) and
 * unknown fields are skipped, as the EventSource standard says.
 */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];

  /** Adds the next piece of the stream; returns the events it completed. */
  push(piece: string): SseMessage[] {
    this.#buffer += piece;
    const messages: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      // A lone '\r' at the end may be the first half of '\r\n': wait for the next piece.
      if (match === null || (match[0] === '\r' && match.index === this.#buffer.length - 1)) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      const message = this.#line(line);
      if (message !== undefined) messages.push(message);
    }
    return messages;
  }

  /** Ends the stream: the event still being read, if it has data. */
  end(): SseMessage[] {
    const rest = this.#buffer.replace(/\r$/, '');
    this.#buffer = '';
    if (rest !== '') this.#line(rest);
    return this.#dispatch() ?? [];
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') return this.#dispatch()?.[0];
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    return undefined;
  }

  #dispatch(): SseMessage[] | undefined {
    const event = this.#event === '' ? 'message' : this.#event;
    const data = this.#data;
    this.#event = '';
    this.#data = [];
    return data.length === 0 ? undefined : [{ event, data: data.join('\n') }];
  }
}
