import { describe, expect, it } from 'vitest';
import { abortReason, throwIfAborted, untilAborted } from './abort.js';

describe('untilAborted', () => {
  it('settles with the promise when no abort comes', async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(1), controller.signal)).resolves.toBe(1);
    await expect(untilAborted(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow(
      'no',
    );
    await expect(untilAborted(Promise.resolve(2), undefined)).resolves.toBe(2);
  });

  it('rejects with the abort reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const pending = untilAborted(new Promise(() => {}), controller.signal);
    controller.abort('why');
    await expect(pending).rejects.toBe('why');
    await expect(
      untilAborted(Promise.reject(new Error('late')), AbortSignal.abort('now')),
    ).rejects.toBe('now');
  });

  it('rejects with the reason the caller makes of the signal', async () => {
    const controller = new AbortController();
    const pending = untilAborted(new Promise(() => {}), controller.signal, () => 'mine');
    controller.abort('theirs');
    await expect(pending).rejects.toBe('mine');
  });

  it('leaves no unhandled rejection when the abandoned work fails later', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const failures: ((error: Error) => void)[] = [];
      const work = (): Promise<never> =>
        new Promise<never>((_, reject) => {
          failures.push(reject);
        });
      const controller = new AbortController();
      const pending = untilAborted(work(), controller.signal);
      controller.abort('stop');
      await expect(pending).rejects.toBe('stop');
      await expect(untilAborted(work(), controller.signal)).rejects.toBe('stop');
      for (const fail of failures) fail(new Error('late failure'));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('abortReason and throwIfAborted', () => {
  it('gives a reasonless abort an AbortError with the given message', () => {
    const signal = { reason: undefined } as unknown as AbortSignal;
    expect(abortReason(signal)).toMatchObject({ name: 'AbortError' });
    expect(abortReason(signal, 'The run was cancelled.')).toMatchObject({
      message: 'The run was cancelled.',
    });
  });

  it('throws the reason of an aborted signal only', () => {
    expect(() => throwIfAborted(undefined)).not.toThrow();
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
    expect(() => throwIfAborted(AbortSignal.abort('gone'))).toThrow('gone');
  });
});
