import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../core/index.js';
import { CalculatorTool } from './builtin/calculator/calculator.js';
import { DeadlineQueue } from './deadline-queue.js';
import { ToolExecutor } from './executor.js';

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

  it('clears its timer once nothing is pending and arms a fresh one for the next deadline', async () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(systemClock);
    const now = performance.now();
    const expired: string[] = [];
    const a = queue.add(now + 30_000, () => expired.push('a'));
    const b = queue.add(now + 40_000, () => expired.push('b'));
    expect(vi.getTimerCount()).toBe(1);
    queue.remove(a);
    expect(queue.armed).toBe(true);
    queue.remove(b);
    expect(queue.armed).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    // A later deadline than the cleared timer's must still get a timer of its own.
    queue.add(performance.now() + 50_000, () => expired.push('c'));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(49_999);
    expect(expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toEqual(['c']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timer behind after a run of tool calls through the executor', async () => {
    vi.useFakeTimers();
    const executor = new ToolExecutor([new CalculatorTool()]);
    for (let i = 0; i < 3; i++) {
      const result = await executor.execute({
        name: 'calculator',
        arguments: { expression: '2+2' },
      });
      expect(result.content).toBe('4');
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});
