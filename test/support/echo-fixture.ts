import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Copies the echo-nats fixture (capabilities.yaml, rpc-peers.yaml, handlers) into `configDir`
 * with its NATS transport replaced by `transport` (the YAML of capabilities.yaml's entry) and
 * its peers' routes by `kind`, as a user moving the same agent to another broker writes them.
 */
export function copyEchoFixtureOn(configDir: string, transport: string, kind: string): void {
  cpSync(new URL('../fixtures/config/echo-nats', import.meta.url).pathname, configDir, { recursive: true });
  for (const file of ['capabilities.yaml', 'rpc-peers.yaml']) {
    const path = join(configDir, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace('nats: { servers: "${env:NATS_URL}" }', transport).replace('kind: nats', `kind: ${kind}`));
  }
}
