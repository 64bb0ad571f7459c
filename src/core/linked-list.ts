/** The links an entry of a `LinkedList` carries (its own fields, so adding and removing allocate nothing). */
export interface ListLinks<T> {
  previous: T | undefined;
  next: T | undefined;
}

/**
 * A doubly-linked list of entries that carry their own links, for things that come and go on a hot path. A `Map`
 * or `Set` that entries keep entering and leaving rehashes, and its obsolete tables keep old entries reachable
 * (for iterators) until a full GC: with many requests in flight that promoted every one of them.
 */
export class LinkedList<T extends ListLinks<T>> {
  first: T | undefined;
  last: T | undefined;
  size = 0;

  /** Appends `entry` (not in any list). */
  push(entry: T): void {
    entry.previous = this.last;
    entry.next = undefined;
    if (this.last === undefined) this.first = entry;
    else this.last.next = entry;
    this.last = entry;
    this.size += 1;
  }

  /** Takes `entry` (in this list) out and drops its links, so that it holds no other entry. */
  remove(entry: T): void {
    const { previous, next } = entry;
    if (previous === undefined) this.first = next;
    else previous.next = next;
    if (next === undefined) this.last = previous;
    else next.previous = previous;
    entry.previous = undefined;
    entry.next = undefined;
    this.size -= 1;
  }
}
