import { sep } from 'node:path';

/** Directories whose whole content is secret (compared lower-cased with each directory of the path). */
const SECRET_DIRECTORIES: ReadonlySet<string> = new Set(['.ssh', '.aws', '.gnupg', 'secrets']);

/** Exact file names (lower-cased) that hold credentials. */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  'credentials',
  '.pgpass',
  '.htpasswd',
  '.secret',
  '.secrets',
]);

/** The last two components (lower-cased, joined with `/`) of files that hold credentials. */
const SECRET_TAILS: ReadonlySet<string> = new Set([
  '.kube/config',
  '.docker/config.json',
  'etc/shadow',
  'etc/shadow-',
  'etc/gshadow',
  'etc/gshadow-',
]);

/** File-name patterns (matched against the lower-cased name) that hold credentials or private keys. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /^\.env/,
  /^.+\.env$/,
  /^credentials\..+$/,
  /^secrets\..+$/,
  /^id_[a-z0-9_-]+(?:\.pub)?$/,
  /\.(?:pem|key|p12|pfx|jks|keystore|ppk)$/,
  /\.secrets?$/,
];

/**
 * A PEM private-key header at the start of any line (openssl writes `Bag Attributes` lines before it, and a
 * PEM bundle may hold a certificate first), or a PuTTY key file.
 */
const PRIVATE_KEY_MARKER =
  /^[\uFEFF \t]*(?:-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:)/m;

/**
 * Why a path names a well-known secret file (`.env*`, `id_*` keys, `*.pem`, `secrets.*`, `.netrc`,
 * `.kube/config`, `.docker/config.json`, anything under `.ssh/` or `.aws/`, …), or undefined when it does
 * not; names are compared without regard to case.
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
  const tail = parts.slice(-2).join('/');
  if (SECRET_TAILS.has(tail)) return `'${tail}' holds secrets`;
  if (SECRET_NAMES.has(name) || SECRET_PATTERNS.some((pattern) => pattern.test(name))) {
    return `'${name}' files hold secrets`;
  }
  return undefined;
}

/**
 * True when the text holds a private key: a PEM `-----BEGIN … PRIVATE KEY-----` line anywhere (also after
 * openssl's `Bag Attributes` preamble or a certificate), or a PuTTY key file.
 */
export function looksLikePrivateKey(text: string): boolean {
  return PRIVATE_KEY_MARKER.test(text);
}
