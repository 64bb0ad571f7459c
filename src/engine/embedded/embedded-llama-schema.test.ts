import { describe, expect, it } from 'vitest';
import { toGbnfJsonSchema } from './embedded-llama-schema.js';

const ANY_JSON = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'array' },
    { type: 'object', additionalProperties: true },
  ],
};

describe('toGbnfJsonSchema', () => {
  it('keeps a simple object schema, with descriptions, and drops keywords the grammar cannot enforce', () => {
    expect(
      toGbnfJsonSchema({
        type: 'object',
        description: 'Evaluates arithmetic.',
        properties: {
          expression: { type: 'string', description: 'Math to evaluate', pattern: '^[0-9+]+$' },
          precision: { type: 'integer', minimum: 0 },
        },
        required: ['expression'],
      }),
    ).toEqual({
      type: 'object',
      description: 'Evaluates arithmetic.',
      properties: {
        expression: { type: 'string', description: 'Math to evaluate' },
        precision: { type: 'integer' },
      },
    });
  });

  it('accepts any object for empty or non-object parameter schemas', () => {
    const anyObject = { type: 'object', additionalProperties: true };
    expect(toGbnfJsonSchema({})).toEqual(anyObject);
    expect(toGbnfJsonSchema({ type: 'string' })).toEqual(anyObject);
    expect(toGbnfJsonSchema({ type: 'object' })).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: true,
    });
  });

  it('converts enums, consts, anyOf and type lists', () => {
    const schema = toGbnfJsonSchema({
      type: 'object',
      properties: {
        unit: { enum: ['c', 'f'] },
        version: { const: 2 },
        target: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        maybe: { type: ['integer', 'null'] },
        label: { type: ['string', 'null'], maxLength: 4 },
        shape: { enum: [{ a: 1 }] },
      },
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        unit: { enum: ['c', 'f'] },
        version: { const: 2 },
        target: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        maybe: { type: ['integer', 'null'] },
        label: { oneOf: [{ type: 'string', maxLength: 4 }, { type: 'null' }] },
        shape: ANY_JSON,
      },
    });
  });

  it('inlines $ref definitions and stops following recursive ones', () => {
    const schema = toGbnfJsonSchema({
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' }, point: { $ref: '#/definitions/point' } },
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
      definitions: {
        point: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 },
      },
    });
    const properties = (schema as { properties: Record<string, unknown> }).properties;
    expect(properties.point).toEqual({
      type: 'array',
      items: { type: 'number' },
      minItems: 2,
      maxItems: 2,
    });
    let depth = 0;
    let node = properties.node as { properties?: { next?: unknown } } | undefined;
    while (node?.properties?.next !== undefined) {
      node = node.properties.next as typeof node;
      depth++;
    }
    expect(depth).toBe(8);
    expect(node).toEqual(ANY_JSON);
  });

  it('drops inconsistent bounds instead of passing ones node-llama-cpp would warn about', () => {
    expect(
      toGbnfJsonSchema({
        type: 'object',
        properties: {
          short: { type: 'string', minLength: 5, maxLength: 2 },
          list: {
            type: 'array',
            prefixItems: [{ type: 'string' }, { type: 'number' }],
            maxItems: 1,
          },
          date: { type: 'string', format: 'date' },
          uri: { type: 'string', format: 'uri' },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        short: { type: 'string', minLength: 5 },
        list: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        date: { type: 'string', format: 'date' },
        uri: { type: 'string' },
      },
    });
  });

  it('honours additionalProperties: false, true and a schema', () => {
    const convert = (additionalProperties: unknown) =>
      toGbnfJsonSchema({
        type: 'object',
        properties: { a: { type: 'boolean' } },
        additionalProperties,
      });
    expect(convert(false)).toEqual({ type: 'object', properties: { a: { type: 'boolean' } } });
    expect(convert(true)).toMatchObject({ additionalProperties: true });
    expect(convert({ type: 'number' })).toMatchObject({ additionalProperties: { type: 'number' } });
  });
});
