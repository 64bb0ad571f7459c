import { StorageError } from './storage-error.js';

/** What replaces a URL's password wherever the URL is shown. */
const HIDDEN = '***';

/** The URL's password, when it has one (to scrub it from driver messages). */
export function urlPassword(url: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

/** The URL with its password replaced by `***` (what errors, logs and `location` show). */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = HIDDEN;
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass/i.test(key)) parsed.searchParams.set(key, HIDDEN);
    }
    return parsed.toString();
  } catch {
    // Not parseable: keep the scheme only, the rest may hold a password.
    return `${url.split(':')[0] ?? 'postgres'}://${HIDDEN}`;
  }
}

/** Removes `password` (and the URL's password) from a message a driver wrote. */
export function scrubPassword(text: string, password: string | undefined): string {
  if (password === undefined || password === '') return text;
  return text.split(password).join(HIDDEN);
}

/**
 * Checks a PostgreSQL URL (`postgres://user:password@host:port/database`); a wrong one is a `StorageError`
 * (`storage_invalid_url`) saying what is accepted, without the password.
 */
export function checkDatabaseUrl(url: string): string {
  const accepted = 'postgres://user:password@host:5432/database (or postgresql://...)';
  if (typeof url !== 'string' || url.trim() === '') {
    throw new StorageError({
      code: 'storage_invalid_url',
      message: `the PostgreSQL url is empty; give ${accepted}`,
    });
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new StorageError({
      code: 'storage_invalid_url',
      message: `the PostgreSQL url ${redactDatabaseUrl(url)} is not a URL; give ${accepted}`,
    });
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StorageError({
      code: 'storage_invalid_url',
      message: `the PostgreSQL url ${redactDatabaseUrl(url)} has scheme ${parsed.protocol.replace(/:$/, '')}; give ${accepted}`,
    });
  }
  if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
    throw new StorageError({
      code: 'storage_invalid_url',
      message: `the PostgreSQL url ${redactDatabaseUrl(url)} names no host; give ${accepted}`,
    });
  }
  return url.trim();
}
