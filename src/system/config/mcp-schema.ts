import * as z from 'zod/mini';
import {
  expecting,
  isTable,
  NAME_RULE,
  number,
  once,
  requiredUrl,
  stringList,
  stringMap,
  table,
  tables,
  text,
} from './values.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PREFIX = /^[A-Za-z0-9_.-]*$/;
const DEFAULT_TIMEOUT_SECONDS = 60;

const PREFIX_EXPECTED = expecting('a string of letters, digits, _, - and . (or "" for no prefix)');

/** The parts of `[[mcp.servers]]` that are checked on their own too (for unique names). */
const parts = once(() => ({
  serverName: text({ ...NAME_RULE, required: true }),
  command: text({ required: true }),
}));

/** One `[[mcp.servers]]` entry as written: a stdio (`command`) or HTTP (`url`) server. */
function serverTable() {
  /** A tool-name prefix: letters, digits, `_`, `-` and `.`; empty means no prefix. */
  const prefix = z
    .string(PREFIX_EXPECTED)
    .check(z.refine((value) => PREFIX.test(value), PREFIX_EXPECTED));
  return table(
    {
      name: z.optional(parts().serverName),
      command: z.optional(parts().command),
      url: z.optional(requiredUrl()),
      args: z.optional(stringList()),
      env: z.optional(stringMap(ENV_NAME, 'NAME')),
      headers: z.optional(stringMap(HEADER_NAME, 'Header-Name')),
      prefix: z.optional(prefix),
      timeout_seconds: z.optional(number({ min: 0, exclusiveMin: true })),
    },
    z.superRefine(checkTransport, { when: () => true }),
  );
}

/** Exactly one of `command` and `url`, and only the keys that go with it. */
function checkTransport(server: Record<string, unknown>, context: z.core.$RefinementCtx): void {
  const has = (key: string) => server[key] !== undefined;
  const problem = (key: string, message: string) =>
    context.addIssue({ code: 'custom', input: server[key], path: [key], message });
  if (!has('name')) {
    problem('name', `missing: every [[mcp.servers]] entry needs ${NAME_RULE.pattern.description}`);
  }
  if (has('command') && has('url')) {
    problem('url', 'give either command (a local process) or url (an HTTP server), not both');
    return;
  }
  if (!has('command') && !has('url')) {
    problem(
      'command',
      'missing: give command = "program" (a local process) or url = "http://host/mcp" (an HTTP server)',
    );
    return;
  }
  const misplaced = has('command') ? ['headers'] : ['args', 'env'];
  for (const key of misplaced.filter(has)) {
    problem(key, `'${key}' applies only to ${has('command') ? 'url' : 'command'} servers`);
  }
}

/** An MCP server's settings: its transport and what that needs, its tool prefix and call timeout. */
function server() {
  return z.pipe(
    serverTable(),
    z.transform((entry, context) => {
      const { name, command, url } = entry;
      const common = name === undefined ? undefined : serverCommon(entry, name);
      if (common !== undefined && command !== undefined) {
        const { args = [], env = {} } = entry;
        return { ...common, transport: 'stdio' as const, command, args, env };
      }
      if (common !== undefined && url !== undefined) {
        return { ...common, transport: 'http' as const, url, headers: entry.headers ?? {} };
      }
      // Unreachable: `checkTransport` reports a missing name or transport, and then this does not run.
      context.issues.push({ code: 'custom', input: entry, message: 'invalid MCP server' });
      return z.NEVER;
    }),
  );
}

/** What every server has: its name, tool prefix and call timeout. */
function serverCommon(
  entry: { readonly prefix?: string | undefined; readonly timeout_seconds?: number | undefined },
  name: string,
) {
  return {
    name,
    /** Tool names become `<prefix><tool>`; default `<name>.`. */
    prefix: entry.prefix ?? `${name}.`,
    /** Per-call timeout (`timeout_seconds`, default 60 s). */
    timeoutMs: Math.round((entry.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000),
  };
}

/** The name a server entry counts under for uniqueness: undefined unless its name and transport are valid. */
function countedName(entry: unknown): string | undefined {
  if (!isTable(entry)) return undefined;
  const { serverName, command } = parts();
  const name = serverName.safeParse(entry.name);
  const transport =
    entry.command === undefined
      ? requiredUrl().safeParse(entry.url)
      : entry.url === undefined
        ? command.safeParse(entry.command)
        : undefined;
  return name.success && transport?.success === true ? name.data : undefined;
}

/** Server names must be unique: each repeat is an error at its name. */
function checkUniqueNames(mcp: Record<string, unknown>, context: z.core.$RefinementCtx): void {
  if (!Array.isArray(mcp.servers)) return;
  const names = new Set<string>();
  mcp.servers.forEach((entry: unknown, index) => {
    const name = countedName(entry);
    if (name === undefined) return;
    if (names.has(name)) {
      context.addIssue({
        code: 'custom',
        input: name,
        path: ['servers', index, 'name'],
        message: `duplicate MCP server name '${name}'; names must be unique`,
      });
    }
    names.add(name);
  });
}

/** `[mcp]` and `[[mcp.servers]]`: external MCP servers, each with a unique name (built on first use). */
export function mcpSection() {
  return table(
    { servers: z.optional(tables(server())) },
    z.superRefine(checkUniqueNames, { when: () => true }),
  );
}
