import { sep } from 'node:path';

/** Directories whose whole content is secret (compared lower-cased with each directory of the path). */
const SECRET_DIRECTORIES: ReadonlySet<string> = new Set(['.ssh', '.aws', '.gnupg', 'secrets']);

/** Exact file names (lower-cased) that hold credentials. */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  '.env',
  '.envrc',
  '.npmrc',
  '.netrc',
  '_netrc',
  '.pypirc',
  '.git-credentials',
  'credentials',
  '.pgpass',
  '.htpasswd',
  '.secret',
  '.secrets',
]);

/** File-name patterns (matched against the lower-cased name) that hold credentials or private keys. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /^\.env\..+$/,
  /^.+\.env$/,
  /^credentials\..+$/,
  /^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.pub)?$/,
  /\.(?:pem|key|p12|pfx|jks|keystore)$/,
  /\.secrets?$/,
];

const PRIVATE_KEY_HEADER = /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * Why a path names a well-known secret file (`.env`, private keys, `.npmrc`, anything under `.ssh/`, …),
 * or undefined when it does not; names are compared without regard to case.
 */
export function secretPathReason(path: string): string | undefined {
  const parts = path
    .split(sep)
    .filter((part) => part !== '')
    .map((part) => part.toLowerCase());
  const name = parts.at(-1);
  if (name === undefined) return undefined;
  const directory = parts.slice(0, -1).find((part) => SECRET_DIRECTORIES.has(part));
  if (directory !== undefined) return `files under '${directory}/' hold secrets`;
  if (SECRET_NAMES.has(name) || SECRET_PATTERNS.some((pattern) => pattern.test(name))) {
    return `'${name}' files hold secrets`;
  }
  return undefined;
}

/** True when the text's first line is a PEM private-key header (`-----BEGIN … PRIVATE KEY-----`). */
export function looksLikePrivateKey(text: string): boolean {
  const start = text.replace(/^\uFEFF?\s*/, '');
  return PRIVATE_KEY_HEADER.test(start);
}
