import { describe, expect, it } from 'vitest';
import { LinkedList, type ListLinks } from './linked-list.js';

interface Item extends ListLinks<Item> {
  readonly name: string;
}

const item = (name: string): Item => ({ name, previous: undefined, next: undefined });

function names(list: LinkedList<Item>): string[] {
  const seen: string[] = [];
  for (let entry = list.first; entry !== undefined; entry = entry.next) seen.push(entry.name);
  return seen;
}

describe('LinkedList', () => {
  it('keeps entries in the order pushed and removes from the front, middle and end', () => {
    const list = new LinkedList<Item>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(item) as [Item, Item, Item, Item];
    for (const entry of [a, b, c, d]) list.push(entry);
    expect(names(list)).toEqual(['a', 'b', 'c', 'd']);
    list.remove(b);
    expect(names(list)).toEqual(['a', 'c', 'd']);
    list.remove(a);
    list.remove(d);
    expect(names(list)).toEqual(['c']);
    expect([list.first?.name, list.last?.name, list.size]).toEqual(['c', 'c', 1]);
    list.remove(c);
    expect([list.first, list.last, list.size]).toEqual([undefined, undefined, 0]);
  });

  it('drops a removed entry links, so it holds no other entry', () => {
    const list = new LinkedList<Item>();
    const [a, b, c] = ['a', 'b', 'c'].map(item) as [Item, Item, Item];
    for (const entry of [a, b, c]) list.push(entry);
    list.remove(b);
    expect([b.previous, b.next]).toEqual([undefined, undefined]);
    expect([a.next?.name, c.previous?.name]).toEqual(['c', 'a']);
  });
});
