import { UsageError } from './cli-exit.js';

/** Parses a whole-number flag within bounds; anything else is a usage error naming the flag. */
export function parseIntegerFlag(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const parsed = Number(value);
    if (
      !/^-?\d+$/.test(value.trim()) ||
      !Number.isSafeInteger(parsed) ||
      parsed < min ||
      parsed > max
    )
      throw new UsageError(`${flag} must be a whole number from ${min} to ${max} (got '${value}')`);
    return parsed;
  };
}

/** Parses a decimal flag within bounds; anything else is a usage error naming the flag. */
export function parseNumberFlag(flag: string, min: number, max: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed < min || parsed > max)
      throw new UsageError(`${flag} must be a number from ${min} to ${max} (got '${value}')`);
    return parsed;
  };
}

/** Splits `a,b, c` into names; empty entries are a usage error. */
export function parseNameList(flag: string) {
  return (value: string): string[] => {
    const names = value.split(',').map((name) => name.trim());
    if (names.some((name) => name === ''))
      throw new UsageError(
        `${flag} takes comma-separated names without empty entries (got '${value}')`,
      );
    return names;
  };
}
