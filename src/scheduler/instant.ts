const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The parts of an ISO 8601 date-time, as read from the text. */
interface IsoParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
  readonly offsetMinutes: number;
}

function parseOffsetMinutes(offset: string | undefined): number | undefined {
  if (offset === undefined || offset.toUpperCase() === 'Z') return 0;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return undefined;
  return (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

function readIsoParts(text: string): IsoParts | undefined {
  const match = ISO_PATTERN.exec(text.trim());
  if (match === null) return undefined;
  const offsetMinutes = parseOffsetMinutes(match[8]);
  if (offsetMinutes === undefined) return undefined;
  const fraction = (match[7] ?? '').padEnd(3, '0').slice(0, 3);
  return {
    year: Number(match[1]),
    month: Number(match[2]),
    day: Number(match[3]),
    hour: Number(match[4] ?? 0),
    minute: Number(match[5] ?? 0),
    second: Number(match[6] ?? 0),
    millisecond: Number(fraction),
    offsetMinutes,
  };
}

/**
 * Reads an ISO 8601 date-time (`2026-03-01T09:00:00Z`, `2026-03-01 09:00`, `2026-03-01T10:00:00+01:00`,
 * `2026-03-01`) as milliseconds since the epoch; without an offset it means UTC. Undefined when invalid.
 */
export function parseIsoInstant(text: string): number | undefined {
  const parts = readIsoParts(text);
  if (parts === undefined) return undefined;
  const { year, month, day, hour, minute, second, millisecond } = parts;
  const utcMs = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  const check = new Date(utcMs);
  const exact =
    check.getUTCFullYear() === year &&
    check.getUTCMonth() === month - 1 &&
    check.getUTCDate() === day &&
    check.getUTCHours() === hour &&
    check.getUTCMinutes() === minute &&
    check.getUTCSeconds() === second;
  return exact ? utcMs - parts.offsetMinutes * 60_000 : undefined;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Formats an instant the way Python's `datetime.isoformat()` does for UTC: `2026-11-30T08:00:00+00:00`. */
export function formatIsoInstant(epochMs: number): string {
  const date = new Date(epochMs);
  const base =
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  const milliseconds = date.getUTCMilliseconds();
  return `${base}${milliseconds === 0 ? '' : `.${pad(milliseconds, 3)}000`}+00:00`;
}

/**
 * Formats an instant for people: ISO 8601 in UTC with its offset, to the second (`2026-12-01T12:00:00+00:00`),
 * the same text the JSON output starts with.
 */
export function formatIsoSeconds(epochMs: number): string {
  return formatIsoInstant(Math.floor(epochMs / 1000) * 1000);
}
