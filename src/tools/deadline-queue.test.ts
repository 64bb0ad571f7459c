import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../core/index.js';
import { DeadlineQueue } from './deadline-queue.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('DeadlineQueue', () => {
  it('expires each deadline at its own time on one timer', async () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(systemClock);
    const now = performance.now();
    const expired: string[] = [];
    queue.add(now + 300, () => expired.push('300'));
    queue.add(now + 100, () => expired.push('100'));
    queue.add(now + 200, () => expired.push('200'));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toEqual(['100']);
    await vi.advanceTimersByTimeAsync(200);
    expect(expired).toEqual(['100', '200', '300']);
    expect(queue.size).toBe(0);
  });

  it('never expires a removed deadline and re-arms for the ones left', async () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(systemClock);
    const now = performance.now();
    const expired: string[] = [];
    const first = queue.add(now + 50, () => expired.push('first'));
    queue.add(now + 80, () => expired.push('second'));
    queue.remove(first);
    queue.remove(first);
    await vi.advanceTimersByTimeAsync(60);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(expired).toEqual(['second']);
  });
});
