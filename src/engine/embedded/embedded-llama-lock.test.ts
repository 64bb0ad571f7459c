import { describe, expect, it } from 'vitest';
import { SerialLock } from './embedded-llama-lock.js';
import { ChunkQueue } from './embedded-llama-queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('SerialLock', () => {
  it('runs tasks one at a time in arrival order', async () => {
    const lock = new SerialLock();
    const order: string[] = [];
    const gate = deferred();
    const first = lock.run(async () => {
      order.push('first starts');
      await gate.promise;
      order.push('first ends');
    });
    const second = lock.run(async () => {
      order.push('second');
    });
    await Promise.resolve();
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second']);
  });

  it('lets a waiting task leave on abort without letting the next one overtake the running task', async () => {
    const lock = new SerialLock();
    const order: string[] = [];
    const gate = deferred();
    const controller = new AbortController();
    const running = lock.run(async () => {
      await gate.promise;
      order.push('running');
    });
    const cancelled = lock.run(async () => order.push('cancelled'), controller.signal);
    const third = lock.run(async () => {
      order.push('third');
    });
    controller.abort(new Error('stop'));
    await expect(cancelled).rejects.toThrow('stop');
    gate.resolve();
    await Promise.all([running, third]);
    expect(order).toEqual(['running', 'third']);
  });

  it('rejects at once for an already aborted signal and keeps going after a failed task', async () => {
    const lock = new SerialLock();
    await expect(lock.run(async () => 1, AbortSignal.abort(new Error('early')))).rejects.toThrow(
      'early',
    );
    await expect(lock.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lock.run(async () => 'after')).toBe('after');
  });
});

describe('ChunkQueue', () => {
  it('yields items pushed before and while iterating, then ends on close', async () => {
    const queue = new ChunkQueue<number>();
    queue.push(1);
    const seen: number[] = [];
    const consumer = (async () => {
      for await (const item of queue) seen.push(item);
    })();
    await Promise.resolve();
    queue.push(2);
    queue.close();
    await consumer;
    expect(seen).toEqual([1, 2]);
  });

  it('throws the failure after the items queued before it', async () => {
    const queue = new ChunkQueue<string>();
    queue.push('a');
    queue.fail(new Error('cut'));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const item of queue) seen.push(item);
      })(),
    ).rejects.toThrow('cut');
    expect(seen).toEqual(['a']);
  });
});
