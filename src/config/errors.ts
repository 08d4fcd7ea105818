/** A deployment setting is missing, malformed or not allowed here; the Worker refuses to serve with it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
