import { pino } from 'pino';
import type { Logger, LogLevel } from '../logger.js';

/** Fields that may hold credentials: pino replaces them with `[redacted]` before writing. */
export const REDACTED_LOG_PATHS = [
  'auth.token',
  'auth.signature',
  '*.auth.token',
  '*.auth.signature',
  'token',
  '*.token',
  'clientSecret',
  '*.clientSecret',
  'password',
  '*.password',
  'headers.authorization',
  '*.headers.authorization',
] as const;

/** JSON logs on stdout (or `destination`), secrets redacted. */
export function createPinoLogger(options: { level: LogLevel | 'silent'; destination?: NodeJS.WritableStream; bindings?: Record<string, unknown> }): Logger {
  const logger = pino(
    { level: options.level, redact: { paths: [...REDACTED_LOG_PATHS], censor: '[redacted]' }, base: options.bindings ?? {} },
    options.destination ?? process.stdout,
  );
  return logger as unknown as Logger;
}
