/** A duration for people: `850 ms`, `1.25 s`, `2 min 5 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trim((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

/** A count with thousands separated by a thin space: `12 345`. */
export function formatCount(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
}

/** An instant as `YYYY-MM-DD HH:MM:SS` in UTC, or in local time with `local` (the page shows local time). */
export function formatInstant(ms: number, local = false): string {
  if (!Number.isFinite(ms) || ms <= 0) return '–';
  const date = new Date(ms);
  const parts = local
    ? [
        date.getFullYear(),
        date.getMonth() + 1,
        date.getDate(),
        date.getHours(),
        date.getMinutes(),
        date.getSeconds(),
      ]
    : [
        date.getUTCFullYear(),
        date.getUTCMonth() + 1,
        date.getUTCDate(),
        date.getUTCHours(),
        date.getUTCMinutes(),
        date.getUTCSeconds(),
      ];
  const two = parts.map((part) => String(part).padStart(2, '0'));
  return `${two[0]}-${two[1]}-${two[2]} ${two[3]}:${two[4]}:${two[5]}`;
}

/** An ISO instant of the API (`next_run`) in local time; '' and bad text stay as they are ('–' for ''). */
export function formatIso(iso: string, local = true): string {
  if (iso === '') return '–';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : formatInstant(ms, local);
}

/** The first `max` characters of a text, with `…` when cut. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function trim(number: string): string {
  return number.replace(/\.?0+$/, '');
}
