import type { LogEntry, logCreator } from 'kafkajs';
import { RpcError } from '../../src/errors.js';
import type { Logger, LogLevel } from '../../src/observability/logger.js';
import type { KafkaLogLevel } from './kafka-options.js';

export type KafkaModule = typeof import('kafkajs');

/**
 * Loads kafkajs on demand, so applications that never use Kafka need not install it.
 * A missing package is a typed, non-retriable error that names the package to install.
 */
export async function loadKafka(loadModule?: () => Promise<unknown>): Promise<KafkaModule> {
  let module: (KafkaModule & { default?: KafkaModule }) | undefined;
  try {
    module = (await (loadModule ?? (() => import('kafkajs')))()) as KafkaModule & { default?: KafkaModule };
  } catch (cause) {
    throw missingPackage(cause);
  }
  // kafkajs is CommonJS: under ESM its exports may sit on `default`.
  const kafka = module?.Kafka ? module : module?.default;
  if (!kafka?.Kafka) throw missingPackage(new Error('the loaded module has no Kafka export'));
  return kafka;
}

function missingPackage(cause: unknown): RpcError {
  return new RpcError('EAGENTRPC_MISSING_PACKAGE', 'the Kafka transport needs the kafkajs package: run `npm install kafkajs`', {
    cause,
    details: { package: 'kafkajs' },
  });
}

/** kafkajs numeric levels (its `logLevel` enum, which is only available once loaded). */
const KAFKAJS_LEVEL: Record<KafkaLogLevel, number> = { nothing: 0, error: 1, warn: 2, info: 4, debug: 5 };

export function kafkajsLevel(level: KafkaLogLevel): number {
  return KAFKAJS_LEVEL[level];
}

function ourLevel(level: number): LogLevel {
  if (level <= 1) return 'error';
  if (level === 2) return 'warn';
  if (level === 4) return 'info';
  return 'debug';
}

/** Writes kafkajs log entries to our Logger, with kafkajs' fields as structured fields. */
export function kafkaLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const target = ourLevel(level);
      if (!logger.isLevelEnabled(target)) return;
      const { message, timestamp: _timestamp, logger: _name, ...fields } = log;
      logger[target]({ ...fields, kafkajs: namespace }, message);
    };
}
