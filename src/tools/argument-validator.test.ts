import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JsonSchema } from '../core/index.js';
import {
  compileArgumentValidator,
  compiledValidatorCount,
  MAX_COMPILED_SCHEMAS,
} from './argument-validator.js';
import { CalculatorTool } from './builtin/calculator/calculator.js';
import { defineTool } from './define-tool.js';
import { ToolExecutor } from './executor.js';

const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');

/** Counts Ajv compiles and remembers the (shared) Ajv they ran on. */
function spyOnCompile(): { readonly calls: () => number; readonly ajvCacheSize: () => number } {
  let instance: Ajv | undefined;
  const original = AjvClass.prototype.compile;
  const spy = vi.spyOn(AjvClass.prototype, 'compile').mockImplementation(function (
    this: Ajv,
    ...args: Parameters<Ajv['compile']>
  ) {
    instance = this;
    return original.apply(this, args);
  });
  return {
    calls: () => spy.mock.calls.length,
    ajvCacheSize: () => (instance as unknown as { _cache: Map<unknown, unknown> })._cache.size,
  };
}

/** A new schema object with the same content every time (what a tool built per run has). */
function echoSchema(tag: string): JsonSchema {
  return {
    type: 'object',
    properties: { text: { type: 'string', description: `Text (${tag})` } },
    required: ['text'],
    additionalProperties: false,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('compileArgumentValidator', () => {
  it('compiles equal-but-new schemas once: 1,000 executors hold one validator', () => {
    const compiles = spyOnCompile();
    const validators = new Set<unknown>();
    const first = compileArgumentValidator(echoSchema('thousand'), 'echo');
    const ajvHeld = compiles.ajvCacheSize();
    const held = compiledValidatorCount();
    for (let i = 0; i < 1000; i++) {
      const tool = defineTool({
        name: 'echo',
        description: 'Echo text.',
        parameters: echoSchema('thousand'),
        execute: (args: { text: string }) => args.text,
      });
      const executor = new ToolExecutor([tool, new CalculatorTool()]);
      expect(executor.has('echo')).toBe(true);
      validators.add(compileArgumentValidator(echoSchema('thousand'), 'echo'));
    }
    expect(validators).toEqual(new Set([first]));
    // One compile for the echo schema, at most one for the calculator's (earlier tests may have compiled it).
    expect(compiles.calls()).toBeLessThanOrEqual(2);
    expect(compiles.ajvCacheSize()).toBeLessThanOrEqual(ajvHeld + 1);
    expect(compiledValidatorCount()).toBeLessThanOrEqual(held + 1);
  });

  it('shares the validator but still validates (defaults, coercion, problems) for every copy', () => {
    const schema = (): JsonSchema => ({
      type: 'object',
      properties: { n: { type: 'integer' }, unit: { type: 'string', default: 'm' } },
      required: ['n'],
    });
    const a = compileArgumentValidator(schema(), 'a');
    const b = compileArgumentValidator(schema(), 'b');
    expect(b).toBe(a);
    const args: Record<string, unknown> = { n: '5' };
    expect(b(args)).toEqual({ ok: true });
    expect(args).toEqual({ n: 5, unit: 'm' });
    expect(a({})).toEqual({ ok: false, problems: ["missing required argument 'n' (integer)"] });
  });

  it('keeps at most MAX_COMPILED_SCHEMAS validators and drops the oldest from Ajv as well', () => {
    const compiles = spyOnCompile();
    compileArgumentValidator(echoSchema('bounded-warm'), 'echo');
    const ajvBefore = compiles.ajvCacheSize();
    const heldBefore = compiledValidatorCount();
    const extra = MAX_COMPILED_SCHEMAS + 40;
    for (let i = 0; i < extra; i++) compileArgumentValidator(echoSchema(`bounded-${i}`), 'echo');
    expect(compiledValidatorCount()).toBe(MAX_COMPILED_SCHEMAS);
    expect(compiles.ajvCacheSize() - ajvBefore).toBeLessThanOrEqual(
      MAX_COMPILED_SCHEMAS - heldBefore,
    );
    // The oldest was dropped: compiling it again compiles anew; the newest is still cached.
    const before = compiles.calls();
    compileArgumentValidator(echoSchema(`bounded-${extra - 1}`), 'echo');
    expect(compiles.calls()).toBe(before);
    compileArgumentValidator(echoSchema('bounded-0'), 'echo');
    expect(compiles.calls()).toBe(before + 1);
  });

  it('refuses an invalid schema naming the tool each time, without keeping it in Ajv', () => {
    const compiles = spyOnCompile();
    const bad = (): JsonSchema => ({ type: 'object', properties: { x: { type: 'nope' } } });
    expect(() => compileArgumentValidator(bad(), 'first')).toThrow(/Tool 'first'.*invalid/);
    const ajvAfterFirst = compiles.ajvCacheSize();
    expect(() => compileArgumentValidator(bad(), 'second')).toThrow(/Tool 'second'.*invalid/);
    expect(compiles.ajvCacheSize()).toBe(ajvAfterFirst);
  });
});
