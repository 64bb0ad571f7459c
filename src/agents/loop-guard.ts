/** What to do with a call the guard has seen: run it, refuse it (the model is repeating itself), or stop the run. */
export type LoopGuardVerdict = 'allow' | 'refuse' | 'stop';

/** The part of a tool call the guard compares: its name and its arguments (JSON text or an object). */
export interface GuardedCall {
  readonly name: string;
  readonly arguments: unknown;
}

/** Options of a `LoopGuard`. */
export interface LoopGuardOptions {
  /** The repeat count (the n-th identical call in a row) that is refused instead of run; default 3. */
  readonly refuseAt?: number;
  /** The repeat count that ends the run; default 4. */
  readonly stopAt?: number;
}

/** Marks arguments that were parsed already, or that are not JSON at all. */
const UNPARSED: unique symbol = Symbol('unparsed');
const NOT_JSON: unique symbol = Symbol('not JSON');

/**
 * Counts identical tool calls issued one after another (name and arguments, the arguments compared after
 * parsing their JSON, so key order and whitespace do not matter) and says when a repeat is to be refused and
 * when the run is to stop. Calls are observed in the order the model issued them, across turns; any different
 * call starts the count again. Arguments are parsed only when two consecutive calls share a name but not the
 * exact text.
 */
export class LoopGuard {
  readonly #refuseAt: number;
  readonly #stopAt: number;
  #name: string | undefined;
  #raw: unknown;
  #parsed: unknown = UNPARSED;
  #repeats = 0;

  constructor(options: LoopGuardOptions = {}) {
    this.#refuseAt = options.refuseAt ?? 3;
    this.#stopAt = options.stopAt ?? 4;
  }

  /** How many identical calls in a row the last observed call completes (1 for a new call). */
  get repeats(): number {
    return this.#repeats;
  }

  /** Records the next call the model issued and returns what to do with it. */
  observe(call: GuardedCall): LoopGuardVerdict {
    if (this.#name === call.name && this.#sameArguments(call.arguments)) {
      this.#repeats += 1;
    } else {
      this.#name = call.name;
      this.#raw = call.arguments;
      this.#parsed = UNPARSED;
      this.#repeats = 1;
    }
    if (this.#repeats >= this.#stopAt) return 'stop';
    if (this.#repeats >= this.#refuseAt) return 'refuse';
    return 'allow';
  }

  /** Forgets the previous call. */
  reset(): void {
    this.#name = undefined;
    this.#raw = undefined;
    this.#parsed = UNPARSED;
    this.#repeats = 0;
  }

  #sameArguments(raw: unknown): boolean {
    if (raw === this.#raw) return true;
    if (this.#parsed === UNPARSED) this.#parsed = parseArguments(this.#raw);
    const parsed = parseArguments(raw);
    if (parsed === NOT_JSON || this.#parsed === NOT_JSON) return false;
    return jsonEqual(parsed, this.#parsed);
  }
}

/** The arguments as a JSON value: text is parsed (blank text means `{}`), anything else is taken as it is. */
function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw === undefined ? {} : raw;
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return NOT_JSON;
  }
}

/** Deep equality of JSON values; object key order does not matter. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index += 1) {
      if (!jsonEqual(left[index], right[index])) return false;
    }
    return true;
  }
  if (Array.isArray(right)) return false;
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  const keys = Object.keys(leftRecord);
  if (keys.length !== Object.keys(rightRecord).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(rightRecord, key) || !jsonEqual(leftRecord[key], rightRecord[key])) {
      return false;
    }
  }
  return true;
}
