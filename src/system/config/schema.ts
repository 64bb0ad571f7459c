import * as z from 'zod/mini';
import { buildConfig, type ConfigWhere } from './build.js';
import { customEngineHosts, fileSchema } from './file-schema.js';
import { once } from './values.js';

/** What `configSchema` parses: the tables of a config file, and where it was read. */
export interface ConfigInput {
  readonly file: Readonly<Record<string, unknown>>;
  readonly where: ConfigWhere;
}

/**
 * The one schema of the configuration: the TOML tables of the config file (checked by `fileSchema`) and where
 * they were read, turned into the `JarvisConfig` the runtime uses. Built once, on first use.
 */
export const configSchema = once(() =>
  z.pipe(
    z.custom<ConfigInput>(),
    z.transform(({ file, where }: ConfigInput, context) => {
      const checked = fileSchema().safeParse(file);
      if (checked.success) {
        return buildConfig(checked.data, where, customEngineHosts(checked.data.engine));
      }
      context.issues.push(...checked.error.issues.map((issue) => ({ ...issue, input: undefined })));
      return z.NEVER;
    }),
  ),
);

/** Makes every property and array of `T` readonly, through nested objects and unions. */
type Frozen<T> = T extends readonly (infer Item)[]
  ? readonly Frozen<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: Frozen<T[Key]> }
    : T;

/**
 * The validated configuration of OpenJarvis, after the config file, the environment and defaults were merged.
 * Paths are absolute (a leading `~` expanded). TOML keys are snake_case (`max_turns`); these fields camelCase.
 */
export type JarvisConfig = Frozen<z.output<ReturnType<typeof configSchema>>>;

/** `[engine]` and `[engine.<key>]`; `[intelligence] default_model` lands in `model`. */
export type EngineConfig = JarvisConfig['engine'];

/** `[agent]`. */
export type AgentConfig = JarvisConfig['agent'];

/** `[memory]`. */
export type MemoryConfig = JarvisConfig['memory'];

/** `[tools]`, `[tools.file_read]`, `[tools.web_search]`, `[tools.code_interpreter]`. */
export type ToolsConfig = JarvisConfig['tools'];

/** `[tools.code_interpreter]`. */
export type CodeInterpreterConfig = ToolsConfig['codeInterpreter'];

/** `[scheduler]`. */
export type SchedulerConfig = JarvisConfig['scheduler'];

/** `[sessions]`. */
export type SessionsConfig = JarvisConfig['sessions'];

/** `[storage]`. */
export type StorageConfig = JarvisConfig['storage'];

/** `[telemetry]`. */
export type TelemetryConfig = JarvisConfig['telemetry'];

/** `[mcp]` and `[[mcp.servers]]`. */
export type McpConfig = JarvisConfig['mcp'];

/** One external MCP server: stdio (`command` + `args`) or HTTP (`url`). */
export type McpServerConfig = McpConfig['servers'][number];
