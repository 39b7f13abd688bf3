import type { MqttClient } from 'mqtt';
import { RpcError } from '../../src/errors.js';

/**
 * Waits for a new client's first connection, which must come within `timeoutMs` (MQTT.js
 * retries meanwhile), so a wrong address or refused credentials are a clear error at start
 * instead of a wait forever. Later connections are retried forever by the client.
 */
export function firstConnection(client: MqttClient, url: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let lastError: Error | undefined;
    const onError = (error: Error): void => void (lastError = error);
    const done = (): void => {
      clearTimeout(timer);
      client.off('connect', onConnect);
      client.off('error', onError);
    };
    const onConnect = (): void => {
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      const cause = lastError?.message ?? 'no answer';
      reject(new RpcError('EAGENTRPC_CONNECT_FAILED', `could not connect to MQTT broker ${url} within ${timeoutMs} ms: ${cause}`, { cause: lastError, details: { url } }));
    }, timeoutMs);
    client.on('connect', onConnect);
    client.on('error', onError);
  });
}
