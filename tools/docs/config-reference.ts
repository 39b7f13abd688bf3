/**
 * Writes docs/config-reference.md from the config schemas: `npm run docs:config`.
 * test/unit/config-reference.test.ts fails when the committed page differs.
 */
import { writeFileSync } from 'node:fs';
import { configReferenceInputs } from './config-reference-inputs.js';
import { renderConfigReference } from './render-config-reference.js';

export const CONFIG_REFERENCE_PATH = new URL('../../docs/config-reference.md', import.meta.url);

writeFileSync(CONFIG_REFERENCE_PATH, renderConfigReference(configReferenceInputs()));
