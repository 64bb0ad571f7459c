import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PublishedEventPayloads } from './event-payloads.js';
import { EventType, isEventType } from './event-types.js';
import {
  type AnyJarvisEvent,
  EventBus,
  type EventPayloadMap,
  type GenericEventPayload,
  type JarvisEvent,
} from './events.js';

const manualClock = { nowMs: () => 1_700_000_000_000, monotonicMs: () => 0 };

describe('EventType', () => {
  it('has every event name of the original, with lower-case wire values', () => {
    expect(Object.keys(EventType)).toHaveLength(51);
    for (const [name, value] of Object.entries(EventType)) expect(value).toBe(name.toLowerCase());
    expect(EventType.TOOL_CALL_START).toBe('tool_call_start');
    expect(EventType.SCHEDULER_TASK_END).toBe('scheduler_task_end');
    expect(isEventType('agent_turn_end')).toBe(true);
    expect(isEventType('AGENT_TURN_END')).toBe(false);
    expect(isEventType('__proto__')).toBe(false);
  });
});

describe('EventBus', () => {
  it('delivers synchronously, in subscription order, with the timestamp of the clock', () => {
    const bus = new EventBus({ clock: manualClock });
    const order: string[] = [];
    bus.subscribe('agent_turn_start', (event) => order.push(`first:${event.data.agent}`));
    bus.subscribe('agent_turn_start', () => order.push('second'));
    bus.subscribeAll((event) => order.push(`all:${event.type}`));
    const event = bus.publish('agent_turn_start', { agent: 'simple', input: 'hi' });
    expect(order).toEqual(['first:simple', 'second', 'all:agent_turn_start']);
    expect(event).toEqual({
      type: 'agent_turn_start',
      timestampMs: 1_700_000_000_000,
      data: { agent: 'simple', input: 'hi' },
    });
  });

  it('only delivers to subscribers of the published type', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribe('tool_call_end', (event) => seen.push(event.type));
    bus.publish('tool_call_start', { toolName: 't', callId: 'c', arguments: {} });
    expect(seen).toEqual([]);
  });

  it('returns an unsubscribe function, and unsubscribe() ignores unknown handlers', () => {
    const bus = new EventBus();
    const seen: number[] = [];
    const handler = () => seen.push(1);
    const unsubscribe = bus.subscribe('session_end', handler);
    const unsubscribeAll = bus.subscribeAll(() => seen.push(2));
    bus.publish('session_end', {});
    unsubscribe();
    unsubscribeAll();
    unsubscribe();
    bus.unsubscribe('session_end', () => undefined);
    bus.publish('session_end', {});
    expect(seen).toEqual([1, 2]);
  });

  it('calls a handler subscribed twice twice, and removes one subscription at a time', () => {
    const bus = new EventBus();
    let calls = 0;
    const handler = () => {
      calls += 1;
    };
    bus.subscribe('trace_step', handler);
    bus.subscribe('trace_step', handler);
    bus.publish('trace_step', {});
    bus.unsubscribe('trace_step', handler);
    bus.publish('trace_step', {});
    expect(calls).toBe(3);
  });

  it('keeps going when a subscriber throws or rejects, and reports the failure', async () => {
    const failures: unknown[] = [];
    const bus = new EventBus({ onListenerError: (error) => failures.push(error) });
    const seen: string[] = [];
    bus.subscribe('inference_start', () => {
      throw new Error('boom');
    });
    bus.subscribe('inference_start', async () => {
      throw new Error('async boom');
    });
    bus.subscribe('inference_start', () => seen.push('third'));
    expect(() =>
      bus.publish('inference_start', { model: 'm', engine: 'e', turn: 1 }),
    ).not.toThrow();
    expect(seen).toEqual(['third']);
    await Promise.resolve();
    expect(failures.map((error) => (error as Error).message)).toEqual(['boom', 'async boom']);
  });

  it('keeps subscriber failures in listenerErrors when no reporter is given', () => {
    const bus = new EventBus();
    bus.subscribe('batch_start', () => {
      throw new Error('broken subscriber');
    });
    bus.publish('batch_start', { size: 1 });
    expect(bus.listenerErrors).toHaveLength(1);
    expect(bus.listenerErrors[0]).toMatchObject({
      error: expect.objectContaining({ message: 'broken subscriber' }),
      event: { type: 'batch_start', data: { size: 1 } },
    });
  });

  it('survives an error reporter that itself throws', () => {
    const bus = new EventBus({
      onListenerError: () => {
        throw new Error('reporter broke');
      },
    });
    const seen: string[] = [];
    bus.subscribe('session_start', () => {
      throw new Error('x');
    });
    bus.subscribe('session_start', () => seen.push('ok'));
    expect(() => bus.publish('session_start', {})).not.toThrow();
    expect(seen).toEqual(['ok']);
  });

  it('records history only when asked, bounded, and can clear it', () => {
    const quiet = new EventBus();
    quiet.publish('batch_start', {});
    expect(quiet.history).toEqual([]);

    const bus = new EventBus({ recordHistory: true, maxHistory: 2 });
    bus.publish('batch_start', { n: 1 });
    bus.publish('batch_start', { n: 2 });
    bus.publish('batch_end', { n: 3 });
    expect(bus.history.map((event: JarvisEvent) => event.data)).toEqual([{ n: 2 }, { n: 3 }]);
    bus.clearHistory();
    expect(bus.history).toEqual([]);
  });

  it('lets a handler unsubscribe during delivery without skipping the others', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    const unsubscribeFirst = bus.subscribe('workflow_start', () => {
      seen.push('first');
      unsubscribeFirst();
    });
    bus.subscribe('workflow_start', () => seen.push('second'));
    bus.publish('workflow_start', {});
    bus.publish('workflow_start', {});
    expect(seen).toEqual(['first', 'second', 'second']);
  });

  it('tells whether anything listens to a type', () => {
    const bus = new EventBus();
    expect(bus.hasSubscribers('tool_call_start')).toBe(false);
    const off = bus.subscribe('tool_call_start', () => undefined);
    expect(bus.hasSubscribers('tool_call_start')).toBe(true);
    expect(bus.hasSubscribers('tool_call_end')).toBe(false);
    off();
    expect(bus.hasSubscribers('tool_call_start')).toBe(false);
    expect(new EventBus({ recordHistory: true }).hasSubscribers('tool_call_end')).toBe(true);
  });
});

describe('event payloads', () => {
  it('types the payload of every published event and keeps the others generic', () => {
    expectTypeOf<keyof PublishedEventPayloads>().toExtend<EventType>();
    expectTypeOf<EventPayloadMap['inference_end']>().toEqualTypeOf<
      PublishedEventPayloads['inference_end']
    >();
    expectTypeOf<EventPayloadMap['workflow_start']>().toEqualTypeOf<GenericEventPayload>();
    // A published payload can still be read as a plain record, as subscribers did before it was typed.
    expectTypeOf<EventPayloadMap['inference_start']>().toExtend<GenericEventPayload>();
  });

  it('type-checks what is published and hands subscribers the typed payload', () => {
    const bus = new EventBus({ recordHistory: true });
    const turns: number[] = [];
    bus.subscribe('inference_end', (event) => {
      expectTypeOf(event.data.turn).toEqualTypeOf<number>();
      turns.push(event.data.turn);
    });
    // @ts-expect-error: inference_start needs the turn.
    bus.publish('inference_start', { model: 'm', engine: 'e' });
    // @ts-expect-error: memory_store has no field `n`.
    bus.publish('memory_store', { backend: 'sqlite', docId: 'd', source: 's', n: 1 });
    bus.publish('inference_end', {
      model: 'm',
      engine: 'e',
      turn: 2,
      success: true,
      latencySeconds: 0.5,
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      ttftSeconds: 0.1,
    });
    expect(turns).toEqual([2]);
    expect(bus.history.map((event) => event.type)).toEqual([
      'inference_start',
      'memory_store',
      'inference_end',
    ]);
  });

  it('lets a catch-all subscriber narrow an event by its type', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribeAll((event: AnyJarvisEvent) => {
      if (event.type === 'tool_timeout')
        seen.push(`${event.data.toolName}:${event.data.timeoutMs}`);
      else seen.push(event.type);
    });
    bus.publish('tool_timeout', { toolName: 'slow', callId: 'c1', timeoutMs: 50 });
    bus.publish('batch_end', {});
    expect(seen).toEqual(['slow:50', 'batch_end']);
  });
});
