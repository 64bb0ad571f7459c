import { describe, expect, it } from 'vitest';
import { loadSqliteDriver, SQLITE_DRIVER_PACKAGE } from './sqlite-driver.js';

describe('loadSqliteDriver', () => {
  it('loads better-sqlite3 with the require it is given', () => {
    const asked: string[] = [];
    const driver = loadSqliteDriver<string>((id) => {
      asked.push(id);
      return 'driver';
    });
    expect(driver).toBe('driver');
    expect(asked).toEqual([SQLITE_DRIVER_PACKAGE]);
    expect(SQLITE_DRIVER_PACKAGE).toBe('better-sqlite3');
  });
});
