import { describe, expect, it } from 'vitest';
import { ChunkQueue } from './embedded-llama-queue.js';

async function drain<T>(queue: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of queue) items.push(item);
  return items;
}

describe('ChunkQueue', () => {
  it('yields items pushed before and while the consumer waits, in order, then ends on close', async () => {
    const queue = new ChunkQueue<number>();
    queue.push(1);
    const drained = drain(queue);
    queue.push(2);
    await Promise.resolve();
    queue.push(3);
    queue.close();
    queue.push(4);
    expect(await drained).toEqual([1, 2, 3]);
  });

  it('hands an item to a waiting consumer directly, within two microtasks of the push', async () => {
    const queue = new ChunkQueue<string>();
    const order: string[] = [];
    const consumer = (async () => {
      for await (const item of queue) order.push(`got ${item}`);
    })();
    await Promise.resolve();
    queue.push('a');
    void Promise.resolve()
      .then(() => undefined)
      .then(() => order.push('two ticks later'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['got a', 'two ticks later']);
    queue.close();
    await consumer;
  });

  it('throws the failure after the items queued before it, once', async () => {
    const queue = new ChunkQueue<number>();
    queue.push(1);
    queue.fail(new Error('broken'));
    queue.push(2);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of queue) seen.push(item);
      })(),
    ).rejects.toThrow('broken');
    expect(seen).toEqual([1]);
    expect(await queue.next()).toEqual({ value: undefined, done: true });
  });

  it('rejects a waiting consumer when it fails', async () => {
    const queue = new ChunkQueue<number>();
    const next = queue.next();
    queue.fail(new Error('gone'));
    await expect(next).rejects.toThrow('gone');
  });

  it('runs onReturn when the consumer leaves early, drops what is queued, and waits for it', async () => {
    let returned = false;
    const queue = new ChunkQueue<number>(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      returned = true;
    });
    queue.push(1);
    queue.push(2);
    for await (const item of queue) {
      expect(item).toBe(1);
      break;
    }
    expect(returned).toBe(true);
    expect(await queue.next()).toEqual({ value: undefined, done: true });
  });

  it('refuses a second next() while one is waiting (one consumer)', async () => {
    const queue = new ChunkQueue<number>();
    const first = queue.next();
    await expect(queue.next()).rejects.toThrow('one consumer');
    queue.push(7);
    expect(await first).toEqual({ value: 7, done: false });
  });
});
