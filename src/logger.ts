/**
 * The logging surface the runtime writes to: a subset of pino's API, so a pino logger can
 * be passed in as is. The default does nothing, and call sites check `isLevelEnabled`
 * before building fields, so an unobserved hot path allocates no log objects.
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type LogFn = (fields: Record<string, unknown>, message: string) => void;

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  isLevelEnabled(level: LogLevel): boolean;
  child(bindings: Record<string, unknown>): Logger;
}

const noop = (): void => {};

export const silentLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  isLevelEnabled: () => false,
  child: () => silentLogger,
};
