// Test support for the scheduler tests (not a test file itself: *.case.test.ts is neither run nor built).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../core/index.js';
import type { TimerHandle, Timers } from './timers.js';

/** A clock moved by hand. */
export class ManualClock implements Clock {
  constructor(public currentMs: number) {}
  nowMs(): number {
    return this.currentMs;
  }
  monotonicMs(): number {
    return this.currentMs;
  }
}

interface PendingTimer {
  readonly id: number;
  readonly atMs: number;
  readonly callback: () => void;
}

/** Timers driven by a `ManualClock`: `advance` moves the clock and fires what came due, in order. */
export class ManualTimers implements Timers {
  #pending: PendingTimer[] = [];
  #nextId = 1;
  readonly delays: number[] = [];

  constructor(readonly clock: ManualClock) {}

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    this.delays.push(delayMs);
    this.#pending.push({ id, atMs: this.clock.currentMs + Math.max(0, delayMs), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#pending = this.#pending.filter((timer) => timer.id !== handle);
  }

  /** Pending timers' due instants, earliest first. */
  get pendingAt(): number[] {
    return this.#pending.map((timer) => timer.atMs).sort((a, b) => a - b);
  }

  /** Moves the clock by `ms`, firing every timer due on the way (and flushing promises between them). */
  async advance(ms: number): Promise<void> {
    const endMs = this.clock.currentMs + ms;
    for (;;) {
      await flushPromises();
      const next = [...this.#pending].sort((a, b) => a.atMs - b.atMs || a.id - b.id)[0];
      if (next === undefined || next.atMs > endMs) break;
      this.#pending = this.#pending.filter((timer) => timer.id !== next.id);
      this.clock.currentMs = Math.max(this.clock.currentMs, next.atMs);
      next.callback();
    }
    this.clock.currentMs = endMs;
    await flushPromises();
  }
}

/** Lets pending promise callbacks run (no waiting on time). */
export async function flushPromises(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A fresh temporary directory and its removal. */
export function tempDir(prefix = 'jarvis-scheduler-'): {
  readonly path: string;
  readonly remove: () => void;
} {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Milliseconds of an ISO 8601 instant (test shorthand). */
export const at = (iso: string): number => Date.parse(iso);
