import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { alias } from '../../src/yaml/aliases.js';
import { configReferenceInputs } from '../../tools/docs/config-reference-inputs.js';
import { renderConfigReference } from '../../tools/docs/render-config-reference.js';

describe('config reference', () => {
  it('config reference - docs/config-reference.md is what the schemas generate', () => {
    const committed = readFileSync(new URL('../../docs/config-reference.md', import.meta.url), 'utf8');
    const generated = renderConfigReference(configReferenceInputs());
    expect(committed, 'docs/config-reference.md is out of date: run `npm run docs:config` and commit it').toBe(generated);
  });

  it('config reference - a transport kind adds a section with its config block and its route fields', () => {
    const configSchema = z.strictObject({ url: z.url().describe('Where the broker is.'), prefetch: alias(z.int().min(1).default(10).describe('Messages fetched ahead.'), 'prefetch_count') });
    const routeSchema = z.strictObject({ kind: z.literal('amqp'), queue: z.string().optional().describe("The peer's queue.") });
    const page = renderConfigReference({ files: [], transports: [{ kind: 'amqp', configSchema, routeSchema }] });
    expect(page).toContain('### `amqp`');
    expect(page).toContain('capabilities.yaml `transports.amqp`:');
    expect(page).toContain('| `url` | URL | yes |  |  | Where the broker is. |');
    expect(page).toContain('| `prefetch` | integer ≥ 1 |  | `10` | `prefetch_count` | Messages fetched ahead. |');
    expect(page).toContain('rpc-peers.yaml routes (`peers[].transports[]` with `kind: amqp`):');
    expect(page).toContain("| `queue` | string |  |  |  | The peer's queue. |");
  });
});
