import { RpcError, type Middleware } from '../../src/index.js';

/**
 * Each caller (the envelope's `from`) may start at most `perSecond` requests a second on
 * this node, per capability; above it the request is answered EAGENTRPC_BUSY at once. Not
 * retriable here, so the broker does not redeliver it: the caller decides whether to try
 * again (a sync call's `retry` does, for BUSY). A fixed one-second window per caller,
 * counted in memory: enough for one replica; a fleet would count in Redis.
 */
export function perCallerRateLimit(perSecond: number, now: () => number = Date.now): Middleware {
  const windows = new Map<string, { second: number; count: number }>();
  return {
    name: 'per-caller-rate-limit',
    handler: (next, capability) => (input, ctx) => {
      const second = Math.floor(now() / 1000);
      const key = `${ctx.from} ${capability}`;
      let window = windows.get(key);
      if (window?.second !== second) {
        // A new second: forget the callers of the last one (the map stays as small as the callers of one second).
        if (window === undefined && windows.size > 10_000) windows.clear();
        window = { second, count: 0 };
        windows.set(key, window);
      }
      if (++window.count > perSecond) {
        throw new RpcError('EAGENTRPC_BUSY', `${ctx.from} may call ${capability} at most ${perSecond} times a second`, {
          retriable: false,
          details: { limit: perSecond, capability, from: ctx.from },
        });
      }
      return next(input, ctx);
    },
  };
}
