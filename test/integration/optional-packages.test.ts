import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('../support/optional-packages-probe.ts', import.meta.url));
const WITHOUT_OPTIONAL_PACKAGES = fileURLToPath(new URL('../support/without-optional-packages.mjs', import.meta.url));

/** The probe's report, from a process in which the A2A SDK, cytoscape and the OpenTelemetry SDK do not resolve. */
function probeWithoutOptionalPackages(): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--import', WITHOUT_OPTIONAL_PACKAGES, PROBE], { timeout: 60_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`probe failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

describe('optional packages', () => {
  it('a node without the A2A SDK, cytoscape and the OpenTelemetry SDK starts, and each feature that needs one names it', async () => {
    const report = await probeWithoutOptionalPackages();
    expect(report).toMatchObject({ a2aServer: 'absent', healthz: 200, flowsPage: 200 });
    expect(report['agentCard']).toEqual({ status: 503, body: JSON.stringify({ error: 'serving agents over A2A needs the @a2a-js/sdk package: run `npm install @a2a-js/sdk`' }) });
    expect(report['cytoscape']).toEqual({ status: 503, body: JSON.stringify({ error: "the flow pages' graph needs the cytoscape package: run `npm install cytoscape`" }) });
    // Configuring the feature is a start-up error naming the package (which of the SDK's packages is met first may vary).
    expect(report['otlpTracing']).toMatchObject({ code: 'EAGENTRPC_MISSING_PACKAGE', message: expect.stringMatching(/^tracing .* needs the @opentelemetry\/[a-z-]+ package: run `npm install @opentelemetry\/[a-z-]+`$/) });
    expect(report['a2aBlock']).toEqual({ code: 'EAGENTRPC_MISSING_PACKAGE', message: 'serving agents over A2A needs the @a2a-js/sdk package: run `npm install @a2a-js/sdk`' });
  });
});
