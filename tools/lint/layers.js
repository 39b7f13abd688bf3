// The layers of the code base, lowest first: the one place they are written down
// (docs/architecture.md draws them). A file may import from its own unit and from units
// listed before its own; units on one line are siblings and never import each other. Since
// imports only point down this list, folders cannot form import cycles.
//
// A unit is a folder (`src/rpc/`, its sub-folders included unless the map places one of them
// itself, as `src/remote-nodes/http-gateway/`) or a single file (`src/errors.ts`). A `*` stands
// for any one folder name: `transports/*/` is each folder of transports/, `src/*/front-door/`
// each feature's front door, so a new plug-in in such a folder needs no row of its own. Other
// units reach a folder through its `index.ts` only.

export const LAYERS = [
  {
    layer: 'base',
    why: 'no knowledge of agents or messages: errors, time, retries, the logging surface, optional packages, files, YAML, secrets',
    units: [
      ['src/errors.ts', 'src/check-integer.ts', 'src/clock.ts', 'src/maybe-promise.ts', 'src/logger.ts'],
      ['src/backoff.ts', 'src/expiring-map.ts', 'src/optional-package.ts', 'src/files/', 'src/yaml/'],
      ['src/redis/', 'src/secrets/'],
    ],
  },
  {
    layer: 'wire',
    why: 'the envelope, what its headers carry, the transport interface and what a call resolves to',
    units: [['src/envelope/'], ['src/transport.ts', 'src/flow-usage.ts', 'src/trace-context.ts'], ['src/delivery.ts', 'src/call-result.ts', 'src/gateway.ts']],
  },
  {
    layer: 'services',
    why: 'what the pipeline stages use, each behind its own interface',
    units: [['src/dlq/'], ['src/observability/'], ['src/guard/'], ['src/auth/', 'src/idempotency/'], ['src/audit/', 'src/http-server/']],
  },
  { layer: 'core', why: 'the agent node: send and receive stages, the inbox, pending calls', units: [['src/rpc/']] },
  {
    layer: 'features',
    why: 'what a node can host or do beyond plain calls; the transport and gateway plug-in interfaces, the gateways and their list',
    units: [
      ['src/flow-recording/', 'src/remote-nodes/'],
      ['src/transport-plugin.ts', 'src/gateway-plugin.ts', 'src/model-agents/', 'src/sessions/'],
      ['src/workflows/', 'src/testing/', 'src/a2a/', 'src/remote-nodes/http-gateway/'],
      ['src/remote-execution/'],
      ['src/gateways.ts'],
    ],
  },
  { layer: 'config', why: 'the YAML files, composed from the features’ schemas', units: [['src/config/'], ['src/codegen/']] },
  {
    layer: 'handler types',
    why: 'what agent.yaml `handlers:` can name: each the plug-in part of its feature folder, none naming another',
    units: [['src/module-handlers/', 'src/*/handler-type/']],
  },
  {
    layer: 'front doors',
    why: 'the plug-ins of the HTTP server, each in its feature’s folder: session API, remote-node routes, /execute, A2A server, flow pages',
    units: [['src/*/front-door/', 'src/remote-execution/server/', 'src/a2a/server/']],
  },
  { layer: 'runtime', why: 'the daemon: agents from YAML', units: [['src/runtime/']] },
  { layer: 'cli', why: 'the agent-rpc command', units: [['src/cli/']] },
  { layer: 'entry points', why: 'the package’s public surfaces', units: [['src/entry-points/'], ['src/index.ts']] },
  {
    layer: 'transports',
    why: 'plug-ins: they use src through its folders’ index files; nothing in src imports them',
    units: [['transports/shared/'], ['transports/*/'], ['transports/plugins.ts']],
  },
  { layer: 'program', why: 'the composition root of the command', units: [['bin/']] },
];

/**
 * Modules other units may import besides a folder's index.ts: each brings a dependency
 * (a package or a large part of the code base) that most users of its folder do not need,
 * so the index leaves it out and importing the folder stays cheap; or it is a light part
 * that light modules need (the built-in model tools, `agent-rpc/tools`), where the index
 * would load the whole folder (test/unit/entry-point-budget.test.ts counts what loads).
 */
export const ENTRIES = {
  // The YAML alias helpers every config schema uses, without YAML file loading.
  'src/yaml/': ['aliases.ts'],
  // Whether an environment variable's name says it holds a secret, without the secret resolvers.
  'src/secrets/': ['secret-masker.ts'],
  // The envelope's schema and id checks, without the codec (decode, encode, canonical form).
  'src/envelope/': ['schema.ts'],
  'src/observability/': ['pino-logger.ts', 'prometheus-metrics.ts', 'tracing/rpc-tracing.ts'],
  // roles.ts: what an API role may do, which the built-in tools check, without the auth providers.
  'src/auth/': ['jwt-verifier.ts', 'oidc-provider.ts', 'oauth2-client-provider.ts', 'roles.ts'],
  // flow-context.ts: the flow a call runs in (peer tools call outside the dispatch), without the rest of rpc/.
  'src/rpc/': ['agent-node.ts', 'flow-context.ts'],
  'src/remote-nodes/': ['remote-node-store.ts', 'remote-nodes-config.ts', 'http-remote-agent.ts'],
  'src/model-agents/': ['agent-handler.ts', 'tools/patch-tool.ts'],
  'src/a2a/server/': ['a2a-server.ts'],
  'src/runtime/': ['daemon.ts'],
};

/**
 * Folders with no index.ts, whose modules other units import directly: under transports/, a
 * folder with an index.ts is a public subpath of the package (`agent-rpc/<folder>`), and the
 * code the transports share is not one.
 */
export const NO_INDEX = ['transports/shared/'];

/**
 * The package's public surfaces name each export from the module that defines it, so that a
 * subpath loads only what it exports: they may import any module of a lower unit.
 */
export const ANY_MODULE = ['src/entry-points/', 'src/index.ts'];

/** Where the rule applies; tests, benchmarks, examples and tools may import anything. */
export const CHECKED = ['src/', 'transports/', 'bin/'];

const ranks = new Map();
const layers = new Map();
/** Units with a `*`: each a pattern of folders, with its rank and layer. */
const patterns = [];
let rank = 0;
for (const { layer, units } of LAYERS) for (const siblings of units) {
  for (const unit of siblings) {
    if (unit.includes('*')) {
      const source = unit.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+');
      patterns.push({ test: new RegExp(`^${source}$`), rank, layer });
    } else {
      ranks.set(unit, rank);
      layers.set(unit, layer);
    }
  }
  rank += 1;
}

const patternOf = (unit) => patterns.find((pattern) => pattern.test.test(unit));
const placed = (folder) => ranks.has(folder) || patternOf(folder) !== undefined;

/** The unit a repository-relative path (`src/rpc/inbox.ts`) belongs to, or undefined outside the map's folders. */
export function unitOf(path) {
  if (!CHECKED.some((prefix) => path.startsWith(prefix))) return undefined;
  const parts = path.split('/');
  if (ranks.has(`${parts[0]}/`)) return `${parts[0]}/`;
  // A feature folder may place a sub-folder on a layer of its own (its plug-in above config,
  // its library below): the deepest folder the map places wins.
  for (let depth = parts.length - 1; depth >= 2; depth -= 1) {
    const folder = `${parts.slice(0, depth).join('/')}/`;
    if (placed(folder)) return folder;
  }
  if (parts.length === 2) return path;
  return `${parts[0]}/${parts[1]}/`;
}

/** The rank of a unit (higher may import lower), or undefined for a unit the map does not place. */
export function rankOf(unit) {
  return ranks.get(unit) ?? patternOf(unit)?.rank;
}

/** The name of a unit's layer. */
export function layerOf(unit) {
  return layers.get(unit) ?? patternOf(unit)?.layer;
}

/** The files other units may import a unit through; undefined for a folder of NO_INDEX (any of its files). */
export function entriesOf(unit) {
  if (NO_INDEX.includes(unit)) return undefined;
  if (!unit.endsWith('/')) return [unit];
  return [`${unit}index.ts`, ...(ENTRIES[unit] ?? []).map((file) => unit + file)];
}
