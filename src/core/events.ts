import { type Clock, systemClock } from './clock.js';
import type { PublishedEventPayloads } from './event-payloads.js';
import type { EventType } from './event-types.js';

/** Payload of the event types this package declares but does not publish: a JSON-like record. */
export type GenericEventPayload = Readonly<Record<string, unknown>>;

/** The payload type of every event type: typed for the published ones, generic for the others. */
export type EventPayloadMap = {
  readonly [Type in EventType]: Type extends keyof PublishedEventPayloads
    ? PublishedEventPayloads[Type]
    : GenericEventPayload;
};

/** One published event. */
export interface JarvisEvent<Type extends EventType = EventType> {
  readonly type: Type;
  /** When it was published, in milliseconds since the Unix epoch. */
  readonly timestampMs: number;
  readonly data: EventPayloadMap[Type];
}

/** Any one published event, narrowed to its payload by a check of `type` (what catch-all subscribers get). */
export type AnyJarvisEvent = { readonly [Type in EventType]: JarvisEvent<Type> }[EventType];

/** A subscriber; its return value is ignored, and a throw or rejection never reaches the publisher. */
export type EventHandler<Type extends EventType = EventType> = (
  event: JarvisEvent<Type>,
) => unknown;

/** A subscriber to every event type; it may narrow the event by its `type`. */
type CatchAllHandler = (event: AnyJarvisEvent) => unknown;

/** Options of an `EventBus`. */
export interface EventBusOptions {
  /** Keep published events in `history` (off by default). */
  readonly recordHistory?: boolean;
  /** Most events kept in history; older ones are dropped first (default 10,000). */
  readonly maxHistory?: number;
  readonly clock?: Clock;
  /** Called when a subscriber throws or rejects; by default the error is kept in `listenerErrors`. */
  readonly onListenerError?: (error: unknown, event: JarvisEvent) => void;
}

/** A failure of one subscriber, kept for inspection. */
export interface ListenerError {
  readonly error: unknown;
  readonly event: JarvisEvent;
}

const MAX_KEPT_LISTENER_ERRORS = 100;

/**
 * Synchronous publish/subscribe: handlers run in subscription order in the publishing call, and a handler
 * that throws does not stop the publisher or the handlers after it.
 */
export class EventBus {
  readonly recordHistory: boolean;
  readonly #maxHistory: number;
  readonly #clock: Clock;
  readonly #onListenerError: ((error: unknown, event: JarvisEvent) => void) | undefined;
  // Copy-on-write arrays: publish iterates without copying, subscribe/unsubscribe replace the array.
  #handlers = new Map<string, readonly EventHandler<never>[]>();
  #allHandlers: readonly CatchAllHandler[] = [];
  #history: AnyJarvisEvent[] = [];
  #listenerErrors: ListenerError[] = [];

  constructor(options: EventBusOptions = {}) {
    this.recordHistory = options.recordHistory ?? false;
    this.#maxHistory = options.maxHistory ?? 10_000;
    this.#clock = options.clock ?? systemClock;
    this.#onListenerError = options.onListenerError;
  }

  /** Calls `handler` for every event of `type`; returns a function that unsubscribes it. */
  subscribe<Type extends EventType>(type: Type, handler: EventHandler<Type>): () => void {
    this.#handlers.set(type, [...(this.#handlers.get(type) ?? []), handler as EventHandler<never>]);
    return () => this.unsubscribe(type, handler);
  }

  /** Calls `handler` for every event of any type; returns a function that unsubscribes it. */
  subscribeAll(handler: CatchAllHandler): () => void {
    this.#allHandlers = [...this.#allHandlers, handler];
    return () => {
      const index = this.#allHandlers.indexOf(handler);
      if (index >= 0) this.#allHandlers = this.#allHandlers.toSpliced(index, 1);
    };
  }

  /** Removes the first subscription of `handler` to `type`; unknown handlers are ignored. */
  unsubscribe<Type extends EventType>(type: Type, handler: EventHandler<Type>): void {
    const handlers = this.#handlers.get(type);
    const index = handlers?.indexOf(handler as EventHandler<never>) ?? -1;
    if (handlers !== undefined && index >= 0)
      this.#handlers.set(type, handlers.toSpliced(index, 1));
  }

  /** True when anything would receive an event of `type` (lets publishers skip building costly payloads). */
  hasSubscribers(type: EventType): boolean {
    return (
      this.recordHistory ||
      this.#allHandlers.length > 0 ||
      (this.#handlers.get(type)?.length ?? 0) > 0
    );
  }

  /** Publishes an event to the subscribers of its type, then to the catch-all subscribers; returns the event. */
  publish<Type extends EventType>(type: Type, data: EventPayloadMap[Type]): JarvisEvent<Type> {
    const event: JarvisEvent<Type> = { type, timestampMs: this.#clock.nowMs(), data };
    const any = event as unknown as AnyJarvisEvent;
    if (this.recordHistory) this.#remember(any);
    const handlers = this.#handlers.get(type);
    if (handlers !== undefined) {
      for (const handler of handlers) this.#deliver(handler as CatchAllHandler, any);
    }
    for (const handler of this.#allHandlers) this.#deliver(handler, any);
    return event;
  }

  /** Events published so far (a copy; empty unless `recordHistory` is on). */
  get history(): readonly AnyJarvisEvent[] {
    return [...this.#history];
  }

  /** Forgets the recorded events. */
  clearHistory(): void {
    this.#history = [];
  }

  /** The latest subscriber failures (up to 100) when no `onListenerError` was given. */
  get listenerErrors(): readonly ListenerError[] {
    return [...this.#listenerErrors];
  }

  #remember(event: AnyJarvisEvent): void {
    this.#history.push(event);
    if (this.#history.length > this.#maxHistory) this.#history.shift();
  }

  #deliver(handler: CatchAllHandler, event: AnyJarvisEvent): void {
    try {
      const returned = handler(event);
      if (returned instanceof Promise)
        returned.catch((error: unknown) => this.#reportListenerError(error, event));
    } catch (error) {
      this.#reportListenerError(error, event);
    }
  }

  #reportListenerError(error: unknown, event: JarvisEvent): void {
    if (this.#onListenerError !== undefined) {
      try {
        this.#onListenerError(error, event);
      } catch {
        // An error reporter that fails has nowhere left to report to.
      }
      return;
    }
    this.#listenerErrors.push({ error, event });
    if (this.#listenerErrors.length > MAX_KEPT_LISTENER_ERRORS) this.#listenerErrors.shift();
  }
}
