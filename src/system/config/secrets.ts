import type { Environment } from './env.js';
import type { JarvisConfig, McpServerConfig } from './schema.js';

/**
 * The secrets a configuration and the environment hold, so that one redactor (core's `createRedactor`) can
 * remove them from every message, excerpt, log and stored row.
 */

/** Environment variables that hold secrets whenever they are set, whatever the naming rule says. */
export const SECRET_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'TAVILY_API_KEY',
  'BRAVE_API_KEY',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'ANTHROPIC_API_KEY',
];

/** Words that make a name secret (`OPENAI_API_KEY`, `apiKey`, `X-Auth-Token`, `Authorization`). */
const SECRET_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'auth',
  'authorization',
  'cookie',
  'pat',
  'credential',
]);

/** A last word that says the value describes a secret rather than being one (`SSH_KEY_PATH`, `AUTH_TYPE`). */
const DESCRIPTOR_WORDS = new Set([
  'path',
  'file',
  'dir',
  'url',
  'uri',
  'host',
  'port',
  'sock',
  'socket',
  'type',
  'name',
  'id',
  'user',
  'username',
  'size',
  'length',
  'count',
  'limit',
  'mode',
  'kind',
  'format',
  'version',
  'provider',
  'endpoint',
  'region',
]);

/** Request headers whose values are never secret; every other configured header value is. */
const PLAIN_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'user-agent',
  'mcp-protocol-version',
]);

/** The words of a name: `OPENAI_API_KEY`, `apiKey`, `X-Api-Key` and `a.b` split into lowercase words. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * True when a variable, key or header name says its value is a secret: one of its words is key, token, secret,
 * password, auth, cookie, ... and its last word is not one that describes the secret (path, file, url, type...).
 */
export function looksSecretName(name: string): boolean {
  const words = wordsOf(name);
  const last = words.at(-1);
  if (last === undefined || DESCRIPTOR_WORDS.has(last)) return false;
  return words.some((word) => SECRET_WORDS.has(word));
}

/** A value with an auth scheme (`Bearer abc`) also yields the credential alone, as it may appear without it. */
function withCredential(value: string): string[] {
  const match = /^\s*(?:Bearer|Basic|Token)\s+(\S+)\s*$/i.exec(value);
  return match?.[1] === undefined ? [value] : [value, match[1]];
}

/** The password and secret-named query values of a URL (`https://u:pw@host/?token=x`). */
function urlSecrets(address: string | undefined): string[] {
  if (address === undefined) return [];
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return [];
  }
  const secrets = url.password === '' ? [] : [decodeURIComponent(url.password)];
  for (const [name, value] of url.searchParams) if (looksSecretName(name)) secrets.push(value);
  return secrets;
}

/** Values of a name -> value table whose names look secret. */
function secretNamedValues(table: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(table)
    .filter(([name]) => looksSecretName(name))
    .flatMap(([, value]) => (value === undefined ? [] : withCredential(value)));
}

/** Arguments after a secret-named flag (`--api-key X`) or inside one (`--token=X`). */
function argumentSecrets(args: readonly string[]): string[] {
  const secrets: string[] = [];
  args.forEach((arg, index) => {
    const inline = /^--?([A-Za-z0-9_-]+)=(.+)$/.exec(arg);
    if (inline?.[1] !== undefined && inline[2] !== undefined && looksSecretName(inline[1])) {
      secrets.push(inline[2]);
    }
    const next = args[index + 1];
    if (/^--?[A-Za-z0-9_-]+$/.test(arg) && looksSecretName(arg) && next !== undefined) {
      secrets.push(next);
    }
  });
  return secrets;
}

/** What one MCP server's settings hold: header values (not Accept-like ones), secret-named env values, args. */
function mcpServerSecrets(server: McpServerConfig): string[] {
  if (server.transport === 'stdio') {
    return [...secretNamedValues(server.env), ...argumentSecrets(server.args)];
  }
  const headers = Object.entries(server.headers)
    .filter(([name]) => !PLAIN_HEADERS.has(name.toLowerCase()))
    .flatMap(([, value]) => withCredential(value));
  return [...headers, ...urlSecrets(server.url)];
}

/** The secrets of the environment: the known key variables, every variable whose name looks secret, URL passwords. */
export function environmentSecrets(env: Environment): readonly string[] {
  const named = SECRET_VARIABLES.map((variable) => env[variable]);
  const variables = ['OPENAI_BASE_URL', 'OLLAMA_HOST', 'SEARXNG_URL', 'OPENJARVIS_DATABASE_URL'];
  const urls = variables.flatMap((variable) => urlSecrets(env[variable]));
  return unique([...named, ...secretNamedValues(env), ...urls]);
}

/**
 * Every secret value the config and the environment hold: the engine API key, key variables (`OPENAI_API_KEY`,
 * `TAVILY_API_KEY`, `BRAVE_API_KEY`, `HF_TOKEN`, any variable named like a secret), MCP server header values,
 * secret-named MCP env values and arguments, and passwords in configured URLs.
 */
export function configSecrets(config: JarvisConfig, env: Environment = {}): readonly string[] {
  const urls = [
    ...Object.values(config.engine.hosts),
    config.tools.webSearchBaseUrl,
    config.storage.url,
  ];
  return unique([
    config.engine.apiKey,
    ...config.mcp.servers.flatMap(mcpServerSecrets),
    ...urls.flatMap(urlSecrets),
    ...environmentSecrets(env),
  ]);
}

/** A `key = value` (TOML) or `KEY=value` (environment dump) assignment; the value quoted or bare. */
const ASSIGNMENT =
  /(["']?)([A-Za-z0-9_.-]+)\1[ \t]*[=:][ \t]*("[^"\n\r\0]*"?|'[^'\n\r\0]*'?|[^\s,}#\0]+)/g;

/** The password of a URL written anywhere (`postgres://user:password@host`). */
const URL_PASSWORD = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/@"']+:([^\s@"']+)@/g;

/** The body lines of PEM private key blocks. */
const PRIVATE_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----([\s\S]*?)(?:-----END|$)/g;

/**
 * The secrets written in raw text that may not parse (a TOML file with a syntax error, an environment dump):
 * values assigned to secret-named keys, quoted or not, closed or not, URL passwords, and the lines of private
 * key blocks.
 */
export function secretsInText(text: string): readonly string[] {
  const secrets: string[] = [];
  for (const match of text.matchAll(ASSIGNMENT)) {
    const [, , name = '', raw = ''] = match;
    if (looksSecretName(name)) secrets.push(...withCredential(raw.replace(/^["']|["']$/g, '')));
  }
  for (const match of text.matchAll(URL_PASSWORD)) {
    const password = match[1] ?? '';
    secrets.push(password);
    try {
      secrets.push(decodeURIComponent(password));
    } catch {
      // Not percent-encoded text: the raw form is enough.
    }
  }
  for (const block of text.matchAll(PRIVATE_KEY_BLOCK)) {
    secrets.push(...(block[1] ?? '').split(/\s+/));
  }
  return unique(secrets);
}

/** Non-blank values, each once, in first-seen order. */
function unique(values: readonly (string | undefined)[]): string[] {
  return [
    ...new Set(
      values.filter((value): value is string => value !== undefined && value.trim() !== ''),
    ),
  ];
}
