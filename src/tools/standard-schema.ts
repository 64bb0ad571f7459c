// The Standard Schema and Standard JSON Schema interfaces (standardschema.dev), written out here as their
// authors ask libraries to do instead of depending on a package: zod 4, valibot and arktype implement them.

/** Options for a Standard JSON Schema converter: the JSON Schema draft wanted, and vendor-specific extras. */
export interface StandardJsonSchemaOptions {
  readonly target: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | (string & {});
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** A Standard JSON Schema converter (`~standard.jsonSchema`): the input or output type as JSON Schema. */
export interface StandardJsonSchemaConverter {
  readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
  readonly output: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
}

/** One problem a Standard Schema validator found: a message and where in the value it is. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a Standard Schema validator returns: the parsed value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** The `~standard` properties of a Standard Schema, with the optional Standard JSON Schema converter. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> | undefined },
  ) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  readonly jsonSchema?: StandardJsonSchemaConverter | undefined;
}

/** A Standard Schema validator (zod 4, valibot, arktype, ...): anything with `~standard.validate`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** The type a Standard Schema validator produces from valid input. */
export type StandardSchemaOutput<Schema extends StandardSchemaV1> = NonNullable<
  Schema['~standard']['types']
>['output'];

/** True when `value` carries Standard Schema properties (`~standard` with a `validate` function). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}
