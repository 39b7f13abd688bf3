import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';

/** Where a config folder's agent meets the run's brokers (test/support/run-brokers.ts). */
export interface ConfigScope {
  /** `transports.nats.subjectPrefix` in capabilities.yaml: the file's share of the run's NATS. */
  readonly natsSubjectPrefix?: string;
  /** `agent.tenantId` in agent.yaml: the file's share of the run's Kafka. */
  readonly tenantId?: string;
}

function editYaml(file: string, edit: (doc: ReturnType<typeof parseDocument>) => void): void {
  if (!existsSync(file)) return;
  const doc = parseDocument(readFileSync(file, 'utf8'));
  edit(doc);
  writeFileSync(file, doc.toString());
}

/**
 * Puts the agent configured in `dir` (agent.yaml, capabilities.yaml) on a test file's
 * share of the run's brokers. Edits in place and keeps the files' layout, so textual
 * edits made before still read the same.
 */
export function scopeConfig(dir: string, scope: ConfigScope): void {
  const { natsSubjectPrefix, tenantId } = scope;
  if (natsSubjectPrefix !== undefined) {
    editYaml(join(dir, 'capabilities.yaml'), (doc) => {
      if (doc.hasIn(['transports', 'nats'])) doc.setIn(['transports', 'nats', 'subjectPrefix'], natsSubjectPrefix);
    });
  }
  if (tenantId !== undefined) editYaml(join(dir, 'agent.yaml'), (doc) => doc.setIn(['agent', 'tenantId'], tenantId));
}

/**
 * Copies a config folder (an example's, say) into a new temporary folder, handler paths
 * made absolute so they still point at the original modules, then scopes it.
 */
export function copyScopedConfig(source: string, scope: ConfigScope): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'scoped-config-')), basename(source));
  cpSync(source, dir, { recursive: true });
  editYaml(join(dir, 'agent.yaml'), (doc) => {
    const handlers = doc.get('handlers');
    if (!isMap(handlers)) return;
    for (const item of handlers.items) {
      if (isScalar(item.value) && typeof item.value.value === 'string' && !isAbsolute(item.value.value)) item.value.value = resolve(source, item.value.value);
    }
  });
  scopeConfig(dir, scope);
  return dir;
}
