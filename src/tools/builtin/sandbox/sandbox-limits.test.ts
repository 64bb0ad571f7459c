import { describe, expect, it } from 'vitest';
import { SandboxSlots } from './sandbox-limits.js';

describe('SandboxSlots', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order', async () => {
    const slots = new SandboxSlots({ limit: 2 });
    const releases: (() => void)[] = [];
    const started: number[] = [];
    let peak = 0;
    const tasks = [0, 1, 2, 3].map((index) =>
      slots.run(
        () =>
          new Promise<number>((resolve) => {
            started.push(index);
            peak = Math.max(peak, slots.inUse);
            releases.push(() => resolve(index));
          }),
      ),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    releases.shift()?.();
    await tasks[0];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    while (releases.length > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(slots.inUse).toBe(0);
  });

  it('releases the slot when a task fails', async () => {
    const slots = new SandboxSlots({ limit: 1 });
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(() => Promise.resolve('next'))).toBe('next');
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => new SandboxSlots({ limit: 0 })).toThrow(/positive integer/);
    expect(() => new SandboxSlots({ limit: 1.5 })).toThrow(/positive integer/);
  });
});
