import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Copies a fleet of config folders (test/fixtures/config/<fleet>/<agent>/) into a temporary
 * folder, each agent id in the YAML files made unique to this run, so its default and named
 * topics, subjects and consumer groups are its own on the run's shared brokers.
 * Returns the folder of each agent and its id, by the agent's name in the fixture.
 */
export function copyFleet(fleet: string, suffix: string): Record<string, { dir: string; id: string }> {
  const source = new URL(`../fixtures/config/${fleet}`, import.meta.url).pathname;
  const names = readdirSync(source);
  const root = mkdtempSync(join(tmpdir(), `${fleet}-`));
  const idOf = (name: string): string => `${name}-${suffix}`;
  const pattern = new RegExp(`\\b(${names.join('|')})\\b`, 'g');
  const out: Record<string, { dir: string; id: string }> = {};
  for (const name of names) {
    const dir = join(root, name);
    cpSync(join(source, name), dir, { recursive: true });
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(pattern, (match) => idOf(match)));
    }
    out[name] = { dir, id: idOf(name) };
  }
  return out;
}
