import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One file per core: broker and process tests spend much of their time waiting on other
// processes (brokers, agents, the CLI), so vitest's default of one fewer leaves a core
// idle; more than that starves the brokers and agent processes on a small machine.
const workers = availableParallelism();

/**
 * Three tiers, all run by `npm test`; one alone with `npm test -- --project <name>`. The
 * folder a test file lives in decides its tier:
 * - unit (test/unit, test/fuzz, test/in-process): no broker, no child process; seconds.
 *   test/in-process holds integration tests that run in this process alone: the memory
 *   transport, HTTP servers and an OpenID provider on loopback.
 * - brokers (test/integration, test/conformance): real brokers and agent processes. One
 *   NATS, one Kafka and one Redis serve the whole run (test/support/run-brokers-setup.ts);
 *   each file works under a prefix of its own.
 *   A file needing a specially configured server (mTLS) starts its own.
 * - chaos (test/chaos): tests that kill or restart servers, so each starts its own.
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
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/fuzz/**/*.test.ts', 'test/in-process/**/*.test.ts'], maxWorkers: workers },
      },
      {
        extends: true,
        test: {
          name: 'brokers',
          include: ['test/integration/**/*.test.ts', 'test/conformance/**/*.test.ts'],
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
