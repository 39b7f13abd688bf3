import { RpcError } from '../../src/errors.js';

export function isRpcErrorWithCode(value: unknown, code: string): boolean {
  return value instanceof RpcError && value.code === code;
}
