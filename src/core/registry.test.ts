import { describe, expect, it, vi } from 'vitest';
import { JarvisError } from './errors.js';
import { Registry } from './registry.js';

interface Greeter {
  greet(): string;
}

describe('Registry', () => {
  it('registers a class with the decorator and instantiates it with create()', () => {
    const registry = new Registry<new (name?: string) => Greeter>('GreeterRegistry');

    @registry.register('hello')
    class Hello implements Greeter {
      readonly #name: string;
      constructor(name = 'world') {
        this.#name = name;
      }
      greet(): string {
        return `hello ${this.#name}`;
      }
    }

    expect(registry.get('hello')).toBe(Hello);
    expect(registry.create('hello').greet()).toBe('hello world');
    expect(registry.create('hello', 'jarvis').greet()).toBe('hello jarvis');
  });

  it('registerValue returns the value; keys(), items() and contains() keep registration order', () => {
    const registry = new Registry<unknown>('ThingRegistry');
    const first = { id: 1 };
    expect(registry.registerValue('b', first)).toBe(first);
    registry.registerValue('a', 2);
    expect(registry.keys()).toEqual(['b', 'a']);
    expect(registry.items()).toEqual([
      ['b', first],
      ['a', 2],
    ]);
    expect(registry.contains('a')).toBe(true);
    expect(registry.contains('c')).toBe(false);
  });

  it('throws on a duplicate key instead of overwriting', () => {
    const registry = new Registry<number>('NumberRegistry');
    registry.registerValue('one', 1);
    expect(() => registry.registerValue('one', 2)).toThrow(
      "NumberRegistry already has an entry for 'one'",
    );
    expect(registry.get('one')).toBe(1);
    expect(() => registry.register('one')(3)).toThrow(
      expect.objectContaining({ code: 'registry_duplicate_key', name: 'JarvisError' }),
    );
  });

  it('names the available keys when a key is missing', () => {
    const registry = new Registry<number>('NumberRegistry');
    expect(() => registry.get('x')).toThrow(
      "NumberRegistry does not have an entry for 'x'. Available: none",
    );
    registry.registerValue('one', 1);
    registry.registerValue('two', 2);
    expect(() => registry.get('three')).toThrow(
      expect.objectContaining({
        code: 'registry_missing_key',
        message: "NumberRegistry does not have an entry for 'three'. Available: one, two",
      }),
    );
    expect(() => registry.get('three')).toThrow(JarvisError);
  });

  it('treats __proto__, constructor and toString as ordinary keys', () => {
    const registry = new Registry<number>('NumberRegistry');
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(registry.contains(key)).toBe(false);
      expect(() => registry.get(key)).toThrow(`does not have an entry for '${key}'`);
    }
    registry.registerValue('__proto__', 7);
    expect(registry.get('__proto__')).toBe(7);
    expect(registry.keys()).toEqual(['__proto__']);
  });

  it('calls factory functions and refuses to create from non-callable values', () => {
    const registry = new Registry<unknown>('MixedRegistry');
    registry.registerValue('factory', (n: number) => ({ doubled: n * 2 }));
    registry.registerValue('value', { plain: true });
    expect(registry.create('factory', 21)).toEqual({ doubled: 42 });
    expect(() => registry.create('value')).toThrow(
      "MixedRegistry entry 'value' is not callable and cannot be instantiated",
    );
  });

  it('clear() empties the registry; delete() removes one key', () => {
    const registry = new Registry<number>('NumberRegistry');
    registry.registerValue('a', 1);
    registry.registerValue('b', 2);
    expect(registry.delete('a')).toBe(true);
    expect(registry.delete('a')).toBe(false);
    registry.clear();
    expect(registry.keys()).toEqual([]);
    registry.registerValue('a', 3);
    expect(registry.get('a')).toBe(3);
  });

  it('refuses empty keys', () => {
    const registry = new Registry<number>('NumberRegistry');
    expect(() => registry.registerValue('', 1)).toThrow('non-empty strings');
  });
});

describe('the global registries', () => {
  it('are one set per process, shared by every copy of the package (the bundled CLI and the library)', async () => {
    const first = await import('./registries.js');
    vi.resetModules();
    const second = await import('./registries.js');
    expect(second.ToolRegistry).toBe(first.ToolRegistry);
    expect(second.AgentRegistry).toBe(first.AgentRegistry);
    expect(second.EngineRegistry).toBe(first.EngineRegistry);
    expect(second.MemoryRegistry).toBe(first.MemoryRegistry);
    expect(second.ToolRegistry).not.toBe(second.AgentRegistry);
  });
});
