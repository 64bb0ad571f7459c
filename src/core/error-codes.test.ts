import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentError } from './agent.js';
import type { EngineError } from './engine.js';
import {
  type AgentErrorCode,
  type DatabaseErrorCode,
  type EngineErrorCode,
  type ErrorCodeOf,
  isJarvisErrorCode,
  JARVIS_ERROR_CODES,
  type JarvisErrorCode,
  TOOL_ERROR_CODES,
  type ToolErrorCode,
} from './error-codes.js';
import { JarvisError } from './errors.js';

describe('error code lists', () => {
  it('are closed: a code outside the lists does not compile', () => {
    const known: JarvisErrorCode = 'unknown_tool';
    // @ts-expect-error an unlisted code is refused (no `string & {}` escape hatch)
    const unlisted: JarvisErrorCode = 'no_such_code';
    // @ts-expect-error JarvisError takes only listed codes
    const thrown = new JarvisError({ code: 'made_up', message: 'x' });
    // @ts-expect-error an engine code list holds only engine codes
    const engine: EngineErrorCode = 'unknown_tool';
    // @ts-expect-error an agent code list holds only agent codes
    const agent: AgentErrorCode = 'engine_cancelled';
    // @ts-expect-error tool result codes are their own list
    const tool: ToolErrorCode = 'invalid_argument';
    // @ts-expect-error the database codes exist only for the stores that keep a SQLite file
    const database: DatabaseErrorCode = 'cache_database_unreadable';
    expect([known, unlisted, thrown.code, engine, agent, tool, database]).toHaveLength(7);
  });

  it('type the subclasses by their own area', () => {
    expectTypeOf<EngineError['code']>().toEqualTypeOf<ErrorCodeOf<'engine'>>();
    expectTypeOf<AgentError['code']>().toEqualTypeOf<ErrorCodeOf<'agent'>>();
    expectTypeOf<'memory_database_unreadable'>().toExtend<JarvisErrorCode>();
    expectTypeOf<'scheduler_database_incompatible'>().toExtend<JarvisErrorCode>();
  });

  it('name each code in one area only', () => {
    const all = Object.values(JARVIS_ERROR_CODES).flat();
    expect(new Set(all).size).toBe(all.length);
    expect(new Set(TOOL_ERROR_CODES).size).toBe(TOOL_ERROR_CODES.length);
  });

  it('isJarvisErrorCode accepts exactly the listed and database codes', () => {
    expect(isJarvisErrorCode('registry_missing_key')).toBe(true);
    expect(isJarvisErrorCode('mcp_timed_out')).toBe(true);
    expect(isJarvisErrorCode('telemetry_database_unreadable')).toBe(true);
    expect(isJarvisErrorCode('cache_database_unreadable')).toBe(false);
    expect(isJarvisErrorCode('no_such_code')).toBe(false);
    expect(isJarvisErrorCode(42)).toBe(false);
  });
});
