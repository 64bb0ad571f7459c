import { describe, expect, it } from 'vitest';
import type { ChatInput, LineEvent } from './chat-input.js';
import { type ChatHandlers, LEAVE_HINT, runChatLoop } from './chat-loop.js';
import type { SlashCommand } from './chat-slash.js';

/** Input that replays `events`; `interruptDuring` presses Ctrl-C while the answer to that question runs. */
class FakeInput implements ChatInput {
  readonly interactive = true;
  readonly #events: LineEvent[];
  #interrupt: (() => void) | undefined;
  watching = 0;

  constructor(events: readonly LineEvent[]) {
    this.#events = [...events];
  }

  async readLine(): Promise<LineEvent> {
    return this.#events.shift() ?? { type: 'end' };
  }

  watchInterrupt(onInterrupt: () => void): () => void {
    this.watching += 1;
    this.#interrupt = onInterrupt;
    return () => {
      this.watching -= 1;
      this.#interrupt = undefined;
    };
  }

  pressCtrlC(): void {
    this.#interrupt?.();
  }

  async ask(): Promise<string | undefined> {
    return undefined;
  }

  close(): void {}
}

const line = (text: string): LineEvent => ({ type: 'line', text });
const ctrlC = (hadText = false): LineEvent => ({ type: 'interrupt', hadText });

/** Handlers that record what they were given; `slow` questions wait until their signal is aborted. */
function recorder(input: FakeInput, failing: readonly string[] = []) {
  const asked: string[] = [];
  const commands: SlashCommand[] = [];
  const cancelled: string[] = [];
  const handlers: ChatHandlers = {
    async answer(question, signal) {
      asked.push(question);
      if (question === 'slow') {
        const done = new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve()),
        );
        input.pressCtrlC();
        await done;
        cancelled.push(question);
        return true;
      }
      return !failing.includes(question);
    },
    async command(command) {
      commands.push(command);
      return command.name === 'exit' ? 'exit' : 'continue';
    },
  };
  return { handlers, asked, commands, cancelled };
}

function stderrSink() {
  let text = '';
  return {
    stream: {
      write: (chunk: string) => {
        text += chunk;
      },
      isTTY: true,
      columns: 80,
    },
    text: () => text,
  };
}

async function run(
  events: readonly LineEvent[],
  failing: readonly string[] = [],
  signal = new AbortController().signal,
) {
  const input = new FakeInput(events);
  const record = recorder(input, failing);
  const stderr = stderrSink();
  const outcome = await runChatLoop({
    input,
    handlers: record.handlers,
    stderr: stderr.stream,
    signal,
  });
  return { ...record, outcome, stderr: stderr.text(), input };
}

describe('runChatLoop', () => {
  it('answers questions and runs slash commands until /exit', async () => {
    const result = await run([
      line('hi'),
      line(''),
      line('/tools calculator'),
      line('/exit'),
      line('never'),
    ]);
    expect(result.asked).toEqual(['hi']);
    expect(result.commands).toEqual([
      { name: 'tools', argument: 'calculator' },
      { name: 'exit', argument: '' },
    ]);
    expect(result.outcome).toEqual({ failures: 0 });
  });

  it('joins continued lines into one question', async () => {
    const result = await run([line('one\\'), line('two')]);
    expect(result.asked).toEqual(['one\ntwo']);
  });

  it('Ctrl-C during an answer cancels only that answer', async () => {
    const result = await run([line('slow'), line('after')]);
    expect(result.cancelled).toEqual(['slow']);
    expect(result.asked).toEqual(['slow', 'after']);
    expect(result.input.watching).toBe(0);
  });

  it('a first Ctrl-C at an empty prompt hints, a second in a row leaves', async () => {
    const result = await run([ctrlC(), line('still here'), ctrlC(), ctrlC(), line('never')]);
    expect(result.asked).toEqual(['still here']);
    expect(result.stderr).toBe(LEAVE_HINT.repeat(2));
  });

  it('Ctrl-C with text typed only clears the line', async () => {
    const result = await run([ctrlC(true), ctrlC(), ctrlC(true), ctrlC(), ctrlC()]);
    expect(result.stderr).toBe(LEAVE_HINT.repeat(2));
  });

  it('counts failed answers and goes on', async () => {
    const result = await run([line('bad'), line('good'), line('bad')], ['bad']);
    expect(result.asked).toEqual(['bad', 'good', 'bad']);
    expect(result.outcome).toEqual({ failures: 2 });
  });

  it('stops when the program is interrupted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run([line('hi')], [], controller.signal);
    expect(result.asked).toEqual([]);
  });
});
