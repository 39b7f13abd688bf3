import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const STEADY_AGENT_ID = 'steady-echo';
export const STEADY_KEY_ID = 'steady-1';

export type SteadyDedupe = 'memory' | 'sqlite';

export interface SteadyConfig {
  /** The config directory `agent-rpc serve --config` reads. */
  readonly dir: string;
  /** The key ring the caller signs and verifies with (the daemon reads it from keys.json). */
  readonly keys: ReadonlyMap<string, Buffer>;
}

/**
 * The config directory of one agent as an operator writes it for `agent-rpc serve`: an echo
 * capability with an input schema, on NATS, HMAC required on every envelope (it signs its
 * replies with the same ring), everything else left at its default — log level info, the
 * audit log, the DLQ file, the flow recorder and, unless `dedupe` says sqlite, the memory
 * dedupe store (a default `serve` keeps no dedupe file: `store: sqlite` must be asked for).
 */
export function writeSteadyConfig(natsUrl: string, dedupe: SteadyDedupe): SteadyConfig {
  const dir = mkdtempSync(join(tmpdir(), 'steady-load-'));
  const key = randomBytes(32);
  writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: { [STEADY_KEY_ID]: `base64:${key.toString('base64')}` } }));
  mkdirSync(join(dir, 'handlers'));
  writeFileSync(join(dir, 'handlers', 'echo.js'), 'export default function echo(input) {\n  return input;\n}\n');
  writeFileSync(
    join(dir, 'agent.yaml'),
    `version: 1
agent: { id: ${STEADY_AGENT_ID} }
rpc:
  auth: { required: hmac, keysRef: "file:keys.json", signingKeyId: ${STEADY_KEY_ID} }
handlers: { echo: ./handlers/echo.js }
http: { port: "\${env:AGENT_HTTP_PORT}" }
dataDir: ./data
`,
  );
  writeFileSync(
    join(dir, 'capabilities.yaml'),
    `version: 1
transports:
  nats: { servers: "${natsUrl}" }
capabilities:
  - name: echo
    description: Answers with its input.
    inputSchema: { type: object, required: [id], properties: { id: { type: string } } }
`,
  );
  if (dedupe === 'sqlite') {
    writeFileSync(
      join(dir, 'event-sources.yaml'),
      `version: 1
sources:
  - { id: inbox, type: agent-inbox, agentId: ${STEADY_AGENT_ID}, idempotency: { store: sqlite } }
`,
    );
  }
  return { dir, keys: new Map([[STEADY_KEY_ID, key]]) };
}
