/** The npm package of the SQLite driver every durable store uses (pinned to 12.x: 13.x crashes on Node 20). */
export const SQLITE_DRIVER_PACKAGE = 'better-sqlite3';

/**
 * Loads the SQLite driver with the caller's synchronous `require` (core imports no packages itself), so the
 * driver is loaded with the first database opened and commands that open none never load it.
 */
export function loadSqliteDriver<Driver>(require: (id: string) => unknown): Driver {
  return require(SQLITE_DRIVER_PACKAGE) as Driver;
}
