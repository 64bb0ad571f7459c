import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../core/index.js';
import type { JarvisSystem } from '../system/index.js';
import { AskView, engineAddress } from './ask-view.js';
import { WaitingNotice } from './ask-wait.js';
import type { CliIo } from './cli-io.js';

const CLEAR = '\r\u001b[2K';

function capture(isTTY: boolean) {
  const stream = {
    text: '',
    isTTY,
    columns: 100,
    write(text: string) {
      stream.text += text;
    },
  };
  return stream;
}

/** A clock that follows vitest's fake timers. */
const fakeClock: Clock = { nowMs: () => Date.now(), monotonicMs: () => Date.now() };

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('WaitingNotice', () => {
  it('shows nothing for the first second, then the model, address and Ctrl-C on a spinner line', () => {
    const stderr = capture(true);
    const notice = new WaitingNotice({ stderr, clock: fakeClock });
    notice.started('qwen3:8b', () => 'http://127.0.0.1:11434');
    vi.advanceTimersByTime(999);
    expect(stderr.text).toBe('');
    vi.advanceTimersByTime(1);
    expect(stderr.text).toBe(
      `${CLEAR}⠋ waiting for qwen3:8b at http://127.0.0.1:11434… (Ctrl-C to cancel) 1.0s`,
    );
    vi.advanceTimersByTime(500);
    expect(
      stderr.text.endsWith(
        `${CLEAR}⠴ waiting for qwen3:8b at http://127.0.0.1:11434… (Ctrl-C to cancel) 1.5s`,
      ),
    ).toBe(true);
    notice.settled();
    expect(stderr.text.endsWith(`1.5s${CLEAR}`)).toBe(true);
    const length = stderr.text.length;
    vi.advanceTimersByTime(5000);
    expect(stderr.text).toHaveLength(length);
  });

  it('is never shown when tokens come within the second, nor on a stream that is not a terminal', () => {
    const terminal = capture(true);
    const quick = new WaitingNotice({ stderr: terminal, clock: fakeClock });
    quick.started('m', () => 'here');
    vi.advanceTimersByTime(900);
    quick.settled();
    vi.advanceTimersByTime(5000);
    expect(terminal.text).toBe('');
    const piped = capture(false);
    const notice = new WaitingNotice({ stderr: piped, clock: fakeClock });
    notice.started('m', () => 'here');
    vi.advanceTimersByTime(5000);
    expect(piped.text).toBe('');
  });

  it('shows the model and address with their escapes made visible, and waits while a tool spinner runs', () => {
    const stderr = capture(true);
    let blocked = true;
    const notice = new WaitingNotice({ stderr, clock: fakeClock, blocked: () => blocked });
    notice.started('m\u001b[2K', () => 'http://h\u001b]8;;x');
    vi.advanceTimersByTime(1000);
    expect(stderr.text).toBe('');
    blocked = false;
    vi.advanceTimersByTime(100);
    expect(stderr.text).toContain('waiting for m^[[2K at http://h^[]8;;x…');
    notice.settled();
  });
});

describe('AskView', () => {
  function terminalIo(): { io: CliIo; stderr: ReturnType<typeof capture> } {
    const stderr = capture(true);
    const io: CliIo = {
      stdout: capture(true),
      stderr,
      stdin: new PassThrough(),
      env: {},
      cwd: '/',
      signal: new AbortController().signal,
    };
    return { io, stderr };
  }

  it('starts the notice on inference_start and clears it on the first token of the stream', () => {
    const { io, stderr } = terminalIo();
    const view = new AskView({ io, yes: false, clock: fakeClock });
    view.bus.publish('inference_start', { model: 'm', engine: 'ollama', turn: 1 });
    vi.advanceTimersByTime(1000);
    expect(stderr.text).toContain("waiting for m at the 'ollama' engine… (Ctrl-C to cancel) 1.0s");
    view.onStreamEvent({ type: 'text_delta', turn: 1, text: 'Hi' });
    expect(stderr.text.endsWith(CLEAR)).toBe(true);
    view.close();
  });

  it('clears the notice when a non-streamed call ends, and remembers what the loop guard said', () => {
    const { io, stderr } = terminalIo();
    const view = new AskView({ io, yes: false, clock: fakeClock, waitDelayMs: 200 });
    view.bus.publish('inference_start', { model: 'm', engine: 'openai', turn: 1 });
    vi.advanceTimersByTime(200);
    expect(stderr.text).toContain('waiting for m');
    view.bus.publish('inference_end', {
      model: 'm',
      engine: 'openai',
      turn: 1,
      success: true,
      latencySeconds: 0.2,
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      ttftSeconds: 0.1,
    });
    expect(stderr.text.endsWith(CLEAR)).toBe(true);
    view.bus.publish('loop_guard_triggered', {
      agent: 'orchestrator',
      toolName: 'calculator',
      callId: 'c4',
      repeats: 4,
      turn: 4,
    });
    expect(view.loopStop).toEqual({ toolName: 'calculator', repeats: 4 });
    view.close();
  });
});

describe('engineAddress', () => {
  function system(resolved: Record<string, unknown>, hosts: Record<string, string> = {}) {
    return {
      engine: async () => ({ key: 'ollama', model: 'm', ...resolved }),
      config: { engine: { hosts } },
    } as unknown as JarvisSystem;
  }

  it("names the server: what the system exposes, else --base-url, the configured host, or the engine's key", async () => {
    const plain = { engine: { engineId: 'ollama' } };
    expect(await engineAddress(system({ address: 'http://a:1' }), undefined)).toBe('http://a:1');
    expect(await engineAddress(system({ engine: { baseUrl: 'http://b:2' } }), 'http://x')).toBe(
      'http://b:2',
    );
    expect(await engineAddress(system(plain), 'http://c:3')).toBe('http://c:3');
    expect(await engineAddress(system(plain, { ollama: 'http://d:4' }), undefined)).toBe(
      'http://d:4',
    );
    expect(await engineAddress(system(plain), undefined)).toBe("the 'ollama' engine");
  });
});
