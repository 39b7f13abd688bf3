import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Integration tests that run in this process alone (memory transport, in-process HTTP
// servers and OpenID provider): no broker, no child process, so they belong to `unit`.
const inProcess = [
  'test/integration/a2a-peer.test.ts',
  'test/integration/api-request-bodies.test.ts',
  'test/conformance/memory.test.ts',
  'test/integration/a2a-server-shutdown.test.ts',
  'test/integration/approvals-and-usage.test.ts',
  'test/integration/auth-hmac.test.ts',
  'test/integration/auth-oidc.test.ts',
  'test/integration/cancellation.test.ts',
  'test/integration/capability-schemas.test.ts',
  'test/integration/flow-recording.test.ts',
  'test/integration/guard.test.ts',
  'test/integration/inbound-port.test.ts',
  'test/integration/memory-calls.test.ts',
  'test/integration/memory-delivery-controls.test.ts',
  'test/integration/memory-inbox.test.ts',
  'test/integration/model-clients.test.ts',
  'test/integration/oidc-issuer.test.ts',
  'test/integration/remote-node-base-url.test.ts',
  'test/integration/remote-execution-replies.test.ts',
  'test/integration/remote-node-store-unreadable.test.ts',
  'test/integration/remote-session-client-faults.test.ts',
  'test/integration/remote-session-client.test.ts',
  'test/integration/secrets-vault.test.ts',
  'test/integration/session-api.test.ts',
  'test/integration/trace-context.test.ts',
  'test/integration/tracing-spans.test.ts',
  'test/integration/web-search-tool.test.ts',
  'test/integration/workflow-runs.test.ts',
];

// One file per core: broker and process tests spend much of their time waiting on other
// processes (brokers, agents, the CLI), so vitest's default of one fewer leaves a core
// idle; more than that starves the brokers and agent processes on a small machine.
const workers = availableParallelism();

/**
 * Three tiers, all run by `npm test`; one alone with `npm test -- --project <name>`:
 * - unit: no broker, no child process; seconds.
 * - brokers: real brokers and agent processes. One NATS, one Kafka and one Redis serve the
 *   whole run (test/support/run-brokers-setup.ts); each file works under a prefix of its own.
 *   A file needing a specially configured server (mTLS) starts its own.
 * - chaos: tests that kill or restart servers, so each starts its own.
 */
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 120_000,
    // The run's Kafka stops with a controlled shutdown when the run ends (up to 30 s, the
    // harness's grace before SIGKILL); vitest's 10 s default would cut it short.
    teardownTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/fuzz/**/*.test.ts', ...inProcess], maxWorkers: workers },
      },
      {
        extends: true,
        test: {
          name: 'brokers',
          include: ['test/integration/**/*.test.ts', 'test/conformance/**/*.test.ts'],
          exclude: inProcess,
          globalSetup: ['test/support/run-brokers-setup.ts'],
          maxWorkers: workers,
          // These tests start agent processes and CLIs next to the brokers on a shared machine:
          // the limit guards against a hang, not a slow start under load.
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        // Fault tests put the machine under load on purpose: they run after the others, one at a time.
        test: { name: 'chaos', include: ['test/chaos/**/*.test.ts'], maxWorkers: 1, sequence: { groupOrder: 1 }, testTimeout: 60_000 },
      },
    ],
  },
});
