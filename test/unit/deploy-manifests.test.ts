import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { builtinPlugins } from '../../transports/plugins.js';

const manifests = (name: string) => parseAllDocuments(readFileSync(new URL(`../../deploy/kubernetes/${name}`, import.meta.url), 'utf8')).map((d) => d.toJS());

describe('deploy - kubernetes', () => {
  it('deploy - the config files in the ConfigMap load with the daemon validation', async () => {
    const [configMap] = manifests('configmap.yaml') as Array<{ data: Record<string, string> }>;
    const dir = mkdtempSync(join(tmpdir(), 'deploy-config-'));
    for (const [file, text] of Object.entries(configMap!.data)) writeFileSync(join(dir, file), text);
    const config = await loadAgentConfig(dir, builtinPlugins, { POD_NAME: 'pr-reviewer-7d9f-abcde', NATS_URL: 'nats://nats:4222' });
    expect(config.agent.value.agent).toMatchObject({ id: 'pr-reviewer', instanceId: 'pr-reviewer-7d9f-abcde' });
    expect(config.agent.value.rpc?.auth).toMatchObject({ required: 'hmac', keysRef: 'secret://fleet-keys' });
    expect(config.eventSources?.value.sources[0]?.agentId).toBe('pr-reviewer');
  });

  it('deploy - the probes hit the daemon endpoints on the metrics port; the grace period outlasts the drain', () => {
    const [deployment] = manifests('deployment.yaml') as Array<{ spec: { template: { spec: { terminationGracePeriodSeconds: number; containers: Array<Record<string, any>> } } } }>;
    const pod = deployment!.spec.template.spec;
    const container = pod.containers[0]!;
    expect(container['readinessProbe'].httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(container['livenessProbe'].httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container['ports']).toEqual([{ name: 'metrics', containerPort: 9464 }]);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(25_000);
  });
});
