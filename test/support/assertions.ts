import { RpcError } from '../../src/errors.js';

export function isRpcErrorWithCode(value: unknown, code: string): boolean {
  return value instanceof RpcError && value.code === code;
}

/** Each delay is its nominal value less at most the backoff's 20% jitter (src/backoff.ts). */
export function expectJittered(delays: readonly number[], nominal: readonly number[]): void {
  if (delays.length !== nominal.length) throw new Error(`expected ${nominal.length} delays, got ${delays.length}: ${delays.join(', ')}`);
  delays.forEach((delay, index) => {
    const top = nominal[index]!;
    if (delay > Math.round(top) || delay < Math.floor(top * 0.8)) throw new Error(`delay ${index + 1} is ${delay}, outside [${Math.floor(top * 0.8)}, ${Math.round(top)}]`);
  });
}
