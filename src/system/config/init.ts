import { configLocation, type LoadConfigOptions } from './load.js';
import { type WrittenStarterConfig, writeStarterConfig } from './starter.js';

/** Options of `initConfig`: where the config goes (as `loadConfig` would look for it) and whether to replace it. */
export interface InitConfigOptions extends LoadConfigOptions {
  /** Replace an existing file; without it an existing file is a `config_exists` error. */
  readonly force?: boolean;
}

/**
 * Writes the commented starter config to `configPath`, else `$OPENJARVIS_CONFIG`, else `<home>/config.toml`
 * (the file `loadConfig` reads), creating its folder.
 */
export function initConfig(options: InitConfigOptions = {}): Promise<WrittenStarterConfig> {
  const { path } = configLocation(options);
  return writeStarterConfig({ path, force: options.force === true });
}
