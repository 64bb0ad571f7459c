import type { Tool, ToolSpec } from '../core/index.js';

/** Options of `buildToolDescriptions`. */
export interface ToolDescriptionOptions {
  /** Include the `Category:` line (default true). */
  readonly includeCategory?: boolean;
  /** Include cost and latency estimate lines when they are non-zero (default false). */
  readonly includeCost?: boolean;
}

type PropertySchema = Readonly<Record<string, unknown>>;

/**
 * The Markdown tool sections used in text-protocol system prompts: one `### name` section per tool with its
 * description, category, optional estimates and parameters (with enum values and defaults when declared).
 */
export function buildToolDescriptions(
  tools: readonly Tool[],
  options: ToolDescriptionOptions = {},
): string {
  if (tools.length === 0) return 'No tools available.';
  return tools.map((tool) => describeTool(tool.spec, options)).join('\n\n');
}

function describeTool(spec: ToolSpec, options: ToolDescriptionOptions): string {
  const lines = [`### ${spec.name}`, spec.description];
  if ((options.includeCategory ?? true) && spec.category) lines.push(`Category: ${spec.category}`);
  if (options.includeCost ?? false) {
    if (spec.costEstimate) lines.push(`Cost estimate: $${toFixedHalfEven(spec.costEstimate, 4)}`);
    if (spec.latencyEstimate)
      lines.push(`Latency estimate: ${toFixedHalfEven(spec.latencyEstimate, 1)}s`);
  }
  const properties = objectOf(spec.parameters.properties);
  const names = Object.keys(properties);
  if (names.length > 0) {
    const required = new Set(
      Array.isArray(spec.parameters.required) ? spec.parameters.required : [],
    );
    lines.push('Parameters:');
    for (const name of names)
      lines.push(describeParameter(name, objectOf(properties[name]), required.has(name)));
  }
  return lines.join('\n');
}

function describeParameter(name: string, schema: PropertySchema, required: boolean): string {
  const facts = [typeName(schema)];
  if (required) facts.push('required');
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    facts.push(`one of: ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`);
  }
  if (schema.default !== undefined) facts.push(`default: ${JSON.stringify(schema.default)}`);
  const description =
    typeof schema.description === 'string' && schema.description !== ''
      ? `: ${schema.description}`
      : '';
  return `  - ${name} (${facts.join(', ')})${description}`;
}

function typeName(schema: PropertySchema): string {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type) && schema.type.length > 0) return schema.type.join(' | ');
  return 'any';
}

function objectOf(value: unknown): PropertySchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as PropertySchema)
    : {};
}

/**
 * `toFixed` with Python's tie rule: an exact tie rounds to the even digit (`1.25` -> `1.2`), as the original's
 * `f"{x:.1f}"` does; `toFixed` rounds ties away from zero.
 */
function toFixedHalfEven(value: number, digits: number): string {
  const rounded = value.toFixed(digits);
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return rounded;
  const exact = Math.abs(value).toFixed(Math.min(100, digits + 30));
  const cut = exact.indexOf('.') + 1 + digits;
  if (!/^50*$/.test(exact.slice(cut))) return rounded;
  const truncated = exact.slice(0, digits === 0 ? cut - 1 : cut);
  const lastDigit = Number(truncated.at(-1));
  if (lastDigit % 2 !== 0) return rounded;
  return value < 0 ? `-${truncated}` : truncated;
}
