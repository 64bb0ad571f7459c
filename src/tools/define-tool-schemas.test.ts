import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { z as z3 } from 'zod3';
import { z as z3v4 } from 'zod3/v4';
import { JarvisError } from '../core/index.js';
import { defineTool } from './define-tool.js';
import { ToolExecutor } from './executor.js';
import type { StandardJsonSchemaConverter, StandardResult } from './standard-schema.js';

/** A hand-made Standard Schema with Standard JSON Schema: a trimmed, non-empty `name` string. */
function nameSchema(options: { readonly jsonSchema?: StandardJsonSchemaConverter } = {}) {
  const json = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { name: { type: 'string', description: 'Who to greet' } },
    required: ['name'],
  };
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'hand-made',
      types: undefined as unknown as { input: unknown; output: { name: string } },
      jsonSchema: options.jsonSchema ?? { input: () => json, output: () => json },
      validate: async (value: unknown): Promise<StandardResult<{ name: string }>> => {
        const name = (value as { name?: unknown }).name;
        if (typeof name === 'string' && name.trim() !== '') return { value: { name: name.trim() } };
        return { issues: [{ message: 'must be a non-empty string', path: [{ key: 'name' }] }] };
      },
    },
  };
}

function refusalOf(define: () => unknown): JarvisError {
  try {
    define();
  } catch (error) {
    expect(error).toBeInstanceOf(JarvisError);
    return error as JarvisError;
  }
  throw new Error('expected defineTool to refuse the definition');
}

describe('defineTool with Standard Schema validators', () => {
  it('takes a hand-made Standard Schema: its JSON Schema for the model, its validate for the arguments', async () => {
    const greet = defineTool({
      name: 'greet',
      description: 'Greets.',
      parameters: nameSchema(),
      execute: ({ name }) => {
        expectTypeOf(name).toEqualTypeOf<string>();
        return `Hello, ${name}!`;
      },
    });
    expect(greet.spec.parameters).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'Who to greet' } },
      required: ['name'],
    });
    const executor = new ToolExecutor([greet]);
    const ok = await executor.execute({ id: 'c', name: 'greet', arguments: '{"name": "  Ada "}' });
    expect(ok).toMatchObject({ success: true, content: 'Hello, Ada!' });
    expect(await greet.execute({ name: '   ' })).toMatchObject({
      success: false,
      errorCode: 'invalid_arguments',
      content: "Invalid arguments for tool 'greet': argument 'name': must be a non-empty string",
    });
  });

  it('runs a zod 4 object end to end through the executor, validating with ~standard.validate', async () => {
    const tool = defineTool({
      name: 'range',
      description: 'Counts.',
      parameters: z.object({ from: z.number().int(), tags: z.array(z.string()).default([]) }),
      execute: ({ from, tags }) => `${from}:${tags.join(',')}`,
    });
    const executor = new ToolExecutor([tool]);
    expect(
      (await executor.execute({ id: 'c', name: 'range', arguments: '{"from": 3}' })).content,
    ).toBe('3:');
    expect((await tool.execute({ from: 1, tags: ['a', 2] })).content).toBe(
      "Invalid arguments for tool 'range': argument 'tags[1]': Invalid input: expected string, received number",
    );
  });

  it("takes zod 3.25's `zod/v4` schemas, keeping their descriptions (they have no ~standard.jsonSchema)", async () => {
    const tool = defineTool({
      name: 'city',
      description: 'City.',
      parameters: z3v4.object({
        city: z3v4.string().describe('City name'),
        days: z3v4.number().default(1),
      }),
      execute: ({ city, days }) => `${city}/${days}`,
    });
    expect(tool.spec.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'number', default: 1 },
      },
      required: ['city'],
    });
    const executor = new ToolExecutor([tool]);
    expect(
      (await executor.execute({ id: 'c', name: 'city', arguments: '{"city": "Oslo"}' })).content,
    ).toBe('Oslo/1');
    expect((await tool.execute({ city: 5 })).content).toMatch(
      /^Invalid arguments for tool 'city': argument 'city': /,
    );
  });

  it('takes zod/mini schemas', async () => {
    const tool = defineTool({
      name: 'mini',
      description: 'Mini.',
      parameters: zm.object({ n: zm.number() }),
      execute: ({ n }) => String(n + 1),
    });
    expect(tool.spec.parameters).toEqual({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
    expect((await tool.execute({ n: 1 })).content).toBe('2');
  });

  it('refuses a zod 3 schema when the tool is defined, saying to use zod 4 or a JSON Schema', () => {
    const error = refusalOf(() =>
      defineTool({
        name: 'old',
        description: 'Old zod.',
        // @ts-expect-error zod 3 schemas cannot produce JSON Schema: refused by the types too
        parameters: z3.object({ q: z3.string() }),
        execute: () => 'never',
      }),
    );
    expect(error.code).toBe('invalid_tool_definition');
    expect(error.message).toContain("Tool 'old': its parameters are a zod 3 schema");
    expect(error.message).toContain("`import { z } from 'zod/v4'` with zod 3.25+");
    expect(error.message).toContain('pass a JSON Schema object as `parameters`');
  });

  it('refuses a Standard Schema that cannot produce JSON Schema, naming its vendor', () => {
    const { jsonSchema: _json, ...props } = nameSchema()['~standard'];
    const error = refusalOf(() =>
      defineTool({
        name: 'opaque',
        description: 'No JSON Schema.',
        // An object literal also fits the JSON Schema overload: this one is refused when defined.
        parameters: { '~standard': props },
        execute: () => 'never',
      }),
    );
    expect(error.message).toMatch(
      /^Tool 'opaque': its hand-made parameters schema cannot produce JSON Schema \(it has no `~standard.jsonSchema`\)\. Use a validator that implements Standard JSON Schema/,
    );
  });

  it('refuses a schema whose converter throws, or that does not describe an object', () => {
    const broken = nameSchema({
      jsonSchema: {
        input: () => {
          throw new Error('draft not supported');
        },
        output: () => ({}),
      },
    });
    const error = refusalOf(() =>
      defineTool({ name: 'broken', description: 'x', parameters: broken, execute: () => 'x' }),
    );
    expect(error.message).toBe(
      "Tool 'broken': its hand-made parameters schema cannot be written as JSON Schema: draft not supported",
    );
    expect(error.cause).toBeInstanceOf(Error);
    const scalar = refusalOf(() =>
      // @ts-expect-error the arguments are an object: a string schema is refused by the types too
      defineTool({ name: 'scalar', description: 'x', parameters: z.string(), execute: () => 'x' }),
    );
    expect(scalar.message).toBe(
      'Tool \'scalar\': its parameters schema must describe an object (the arguments), got JSON Schema type "string"',
    );
  });

  it('still writes types JSON Schema cannot express as an unconstrained property', () => {
    const tool = defineTool({
      name: 'when',
      description: 'x',
      parameters: z.object({ at: z.date() }),
      execute: () => 'x',
    });
    expect(tool.spec.parameters).toEqual({
      type: 'object',
      properties: { at: {} },
      required: ['at'],
    });
  });
});
