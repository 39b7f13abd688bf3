import { normalizeAgentUri } from '../rpc/index.js';
import { UsageError } from './command.js';

/** `agent://<id> <capability>` and `--payload '<json>'` of `call` and `emit`. */
export function callTarget(positionals: readonly string[], payloadArg: string | undefined): { to: string; capability: string; payload: unknown } {
  const [target, capability, ...extra] = positionals;
  if (target === undefined || capability === undefined || extra.length > 0) throw new UsageError('expected: agent://<id> <capability>');
  let to: string;
  try {
    to = normalizeAgentUri(target);
  } catch {
    throw new UsageError(`${JSON.stringify(target)} is not agent://<id>`);
  }
  if (payloadArg === undefined) return { to, capability, payload: null };
  try {
    return { to, capability, payload: JSON.parse(payloadArg) };
  } catch {
    throw new UsageError('--payload must be JSON');
  }
}
