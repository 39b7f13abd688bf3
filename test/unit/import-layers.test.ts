import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import layers from '../../tools/lint/eslint-plugin-layers.js';
import { layerOf, rankOf, unitOf } from '../../tools/lint/layers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const at = (path: string): string => join(root, path);

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' } });

describe('layers - the import rule', () => {
  tester.run('layers/imports', layers.rules.imports, {
    valid: [
      { name: 'down, through the index', filename: at('src/rpc/planted.ts'), code: "import { decodeEnvelope } from '../envelope/index.js';" },
      { name: 'a root file of a lower layer', filename: at('src/guard/planted.ts'), code: "import { RpcError } from '../errors.js';" },
      { name: 'an entry module the map names', filename: at('src/runtime/planted.ts'), code: "import { createPinoLogger } from '../observability/pino-logger.js';" },
      { name: 'a dynamic import of an internal module', filename: at('src/runtime/planted.ts'), code: "await import('../idempotency/sqlite-store.js');" },
      { name: 'an entry point naming the defining module', filename: at('src/entry-points/planted.ts'), code: "export { Inbox } from '../rpc/inbox.js';" },
      { name: 'inside a folder', filename: at('src/rpc/planted.ts'), code: "import { Inbox } from './inbox.js';" },
      { name: 'a transport using src through an index', filename: at('transports/nats/planted.ts'), code: "import { noMetrics } from '../../src/observability/index.js';" },
      { name: 'a transport using the shared transport code, which has no index', filename: at('transports/nats/planted.ts'), code: "import { TransportBase } from '../shared/transport-base.js';" },
      { name: 'a front door in a feature folder, placed by the pattern src/*/front-door/', filename: at('src/new-feature/front-door/planted.ts'), code: "import { loadAgentConfig } from '../../config/index.js';" },
      { name: 'tests are outside the rule', filename: at('test/unit/planted.test.ts'), code: "import { Inbox } from '../../src/rpc/inbox.js';" },
    ],
    invalid: [
      { name: 'upward', filename: at('src/guard/planted.ts'), code: "import { PeerTable } from '../rpc/index.js';", errors: [{ messageId: 'upward' }] },
      { name: 'upward, type only', filename: at('src/observability/planted.ts'), code: "import type { Handler } from '../rpc/index.js';", errors: [{ messageId: 'upward' }] },
      { name: 'src importing a transport', filename: at('src/config/planted.ts'), code: "import { natsTransport } from '../../transports/nats/index.js';", errors: [{ messageId: 'upward' }] },
      { name: 'config reaching up into a front door', filename: at('src/config/planted.ts'), code: "import { sessionsFrontDoor } from '../sessions/front-door/index.js';", errors: [{ messageId: 'upward' }] },
      { name: 'between siblings', filename: at('src/auth/planted.ts'), code: "import { Dedupe } from '../idempotency/index.js';", errors: [{ messageId: 'sibling' }] },
      { name: 'between transports', filename: at('transports/nats/planted.ts'), code: "import { kafkaTransport } from '../kafka/index.js';", errors: [{ messageId: 'sibling' }] },
      { name: 'into another folder\'s internals', filename: at('src/rpc/planted.ts'), code: "import { decodeEnvelope } from '../envelope/decode.js';", errors: [{ messageId: 'internal' }] },
      { name: 'a re-export of internals', filename: at('src/runtime/planted.ts'), code: "export { Inbox } from '../rpc/inbox.js';", errors: [{ messageId: 'internal' }] },
      { name: 'the own folder\'s index', filename: at('src/rpc/planted.ts'), code: "import { PeerTable } from './index.js';", errors: [{ messageId: 'ownIndex' }] },
      { name: 'a folder without a layer', filename: at('src/unplaced/planted.ts'), code: "import { RpcError } from '../errors.js';", errors: [{ messageId: 'unplaced' }] },
      { name: 'test code from src', filename: at('src/rpc/planted.ts'), code: "import { until } from '../../test/support/wait.js';", errors: [{ messageId: 'outside' }] },
    ],
  });
});

describe('layers - the map', () => {
  it('layers - every file of src and transports has a layer', () => {
    const files = ['src', 'transports'].flatMap((top) => readdirSync(at(top), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => relative(root, join(entry.parentPath, entry.name))));
    expect(files.length).toBeGreaterThan(300);
    expect(files.filter((file) => rankOf(unitOf(file)!) === undefined)).toEqual([]);
  });

  it('layers - a plug-in folder of a pattern row is placed without a row of its own; a folder nothing places is not', () => {
    expect(unitOf('src/any-feature/front-door/door.ts')).toBe('src/any-feature/front-door/');
    expect(layerOf('src/any-feature/front-door/')).toBe('front doors');
    expect(layerOf(unitOf('src/any-feature/handler-type/type.ts')!)).toBe('handler types');
    expect(unitOf('src/sessions/session-manager.ts')).toBe('src/sessions/');
    expect(rankOf(unitOf('src/unplaced/x.ts')!)).toBeUndefined();
  });
});
