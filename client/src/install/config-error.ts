/** A tool's configuration file the installer will not touch (it does not parse, or it conflicts). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
