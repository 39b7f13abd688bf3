import { dirname } from 'node:path';
import { z } from 'zod';
import { AGENT_URI_RE, isAgentId } from '../envelope/schema.js';
import type { Clock } from '../clock.js';
import type { PeerEntry } from '../rpc/peer-table.js';
import type { SecretValue } from '../secrets/secret-value.js';
import { TRANSPORT_KINDS } from '../transport.js';
import { peerAuthSchema } from './auth-config.js';
import { buildPeerAuth } from './build-auth.js';
import { loadYamlFile, parseYaml, type LoadedYaml } from './load-yaml.js';

const peerIdSchema = z.string().refine((id) => AGENT_URI_RE.test(id) || isAgentId(id), 'must be agent://<id> or a bare agent id');

export const peersFileSchema = z.strictObject({
  version: z.literal(1).describe('The file format version.'),
  peers: z.array(
    z.strictObject({
      id: peerIdSchema.describe('The peer: `agent://<id>` or a bare agent id.'),
      tenantId: z.string().min(1).optional().describe("The peer's tenant, set on envelopes to it."),
      transports: z
        .array(
          z.strictObject({
            kind: z.enum(TRANSPORT_KINDS),
            /** The peer's inbox topic (NATS subject, Kafka topic); default agents.<id>.requests. */
            requestsTopic: z.string().min(1).optional(),
            /** Where the peer listens; must be where this agent connects for that kind (checked at start). */
            servers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
            brokers: z.array(z.string().min(1)).min(1).optional(),
            /** `kind: http`: the remote node (agent.yaml `remote_nodes`, or the node store) whose session API serves this peer. */
            node: z.string().min(1).optional(),
          })
          .refine((route) => (route.kind === 'http') === (route.node !== undefined), { message: 'an http route names its remote node (node:), and only http routes do', path: ['node'] }),
        )
        .min(1)
        .describe('Routes to the peer, in order of preference: the first kind this agent has loaded is used.'),
      auth: peerAuthSchema.optional().describe('How this agent authenticates to the peer, and checks what it sends (docs/auth.md). Default: internal.'),
    }),
  ).describe('The agents this agent calls, and how to reach them.'),
});
export type PeersFile = z.infer<typeof peersFileSchema>;

export interface PeersFileOptions {
  /** Resolves `...Ref` fields; relative `file:` references resolve against the file's directory. */
  readonly resolveSecret: (ref: string, baseDir: string) => Promise<SecretValue>;
  readonly clock?: Clock;
}

/** Reads `rpc-peers.yaml` (version 1) into peer entries, auth providers built and secrets resolved. */
export async function loadPeersFile(file: string, options: PeersFileOptions): Promise<PeerEntry[]> {
  return toPeerEntries(await loadYamlFile(file, peersFileSchema), options);
}

export async function parsePeersFile(file: string, text: string, options: PeersFileOptions): Promise<PeerEntry[]> {
  return toPeerEntries(parseYaml(file, text, peersFileSchema), options);
}

export async function toPeerEntries(loaded: LoadedYaml<PeersFile>, options: PeersFileOptions): Promise<PeerEntry[]> {
  const baseDir = dirname(loaded.file);
  return Promise.all(
    loaded.value.peers.map(async (peer, index): Promise<PeerEntry> => {
      // Over http the "topic" a request is published to is the remote node's name.
      const routes = peer.transports.map((route) => {
        const topic = route.kind === 'http' ? route.node : route.requestsTopic;
        return { kind: route.kind, ...(topic ? { requestsTopic: topic } : {}) };
      });
      const entry: PeerEntry = { id: peer.id, routes, ...(peer.tenantId ? { tenantId: peer.tenantId } : {}) };
      if (peer.auth === undefined) return entry;
      const auth = await buildPeerAuth(peer.auth, {
        resolveSecret: (ref) => options.resolveSecret(ref, baseDir),
        file: loaded.file,
        field: `peers[${index}].auth`,
        lineOf: (field) => loaded.lineOf(['peers', index, 'auth', field]),
        clock: options.clock,
      });
      return { ...entry, auth };
    }),
  );
}
