import type { CallResult } from '../../src/index.js';

/** One line per call: what was called, how it ended, its flow and latency, then the answer (or `detail`). */
export function show(label: string, route: string, result: CallResult, detail?: string): void {
  detail ??= result.status === 'ok' ? JSON.stringify(result.response ?? null) : `${result.error?.code}: ${result.error?.message}`;
  console.log(
    `${label.padEnd(16)} ${route.padEnd(38)} status=${result.status.padEnd(9)} correlationId=${result.correlationId} latency=${result.latencyMs.toFixed(2)}ms  ${detail}`,
  );
}
