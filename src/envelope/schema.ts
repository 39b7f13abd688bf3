/**
 * AgentRpcEnvelope v1: the one wire format for requests, responses and events.
 *
 * The schema is strict on purpose (fail closed): an unknown field is an error, not
 * something to carry along, because anything a receiver does not understand may be
 * something a signer did not mean. Evolution rule: v1.x only adds optional fields, so a
 * v1 reader that sees a field it does not know is talking to a newer producer and says
 * so (`unknown-field`); a breaking change bumps `version`, which this reader refuses.
 */
import { z } from 'zod';

export const ENVELOPE_VERSION = 1 as const;

export const ENVELOPE_KINDS = ['request', 'response', 'event'] as const;
export type EnvelopeKind = (typeof ENVELOPE_KINDS)[number];

/**
 * A `replyTo` scheme: an RFC 3986 scheme in lower case — a transport kind. Any scheme is
 * valid on the wire; whether a loaded transport reaches it is decided when replying
 * (EAGENTRPC_NO_TRANSPORT), so a transport added later needs no change here.
 */
export const URI_SCHEME_RE = /^[a-z][a-z0-9+.-]*$/;

const AGENT_URI_PREFIX = 'agent://';
const AGENT_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const AGENT_URI_RE = /^agent:\/\/[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
// `$` may lead so that runtime-reserved capabilities (`$ping`) cannot clash with user ones.
export const CAPABILITY_RE = /^[A-Za-z0-9$][A-Za-z0-9._:/-]{0,127}$/;
// Ids end up in broker headers, dedupe keys and log lines: a narrow alphabet keeps them safe.
export const MESSAGE_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
// Tenant ids are spliced into topic names, so no separators beyond `._-`.
export const TENANT_ID_RE = /^[A-Za-z0-9._-]{1,128}$/;
export const REPLY_TO_RE = /^[a-z][a-z0-9+.-]*:\/\/[\s\S]+$/;

/** Fields of the top level, in the order the encoder writes them. */
export const ENVELOPE_FIELDS = [
  'version',
  'kind',
  'messageId',
  'correlationId',
  'causedBy',
  'from',
  'to',
  'capability',
  'replyTo',
  'deadline',
  'tenantId',
  'headers',
  'payload',
  'auth',
] as const;
export type EnvelopeField = (typeof ENVELOPE_FIELDS)[number];

/** Fields whose failures are reported as `invalid-id` rather than `invalid-field`. */
export const ENVELOPE_ID_FIELDS: ReadonlySet<string> = new Set(['messageId', 'correlationId', 'causedBy']);

export interface EnvelopeAuthInternal {
  kind: 'internal';
}
export interface EnvelopeAuthHmac {
  kind: 'hmac';
  keyId: string;
  signature: string;
}
export interface EnvelopeAuthOidc {
  kind: 'oidc';
  token: string;
  keyId?: string;
}
export interface EnvelopeAuthOauth2Client {
  kind: 'oauth2-client';
  token: string;
  scope?: string;
}
export type EnvelopeAuth = EnvelopeAuthInternal | EnvelopeAuthHmac | EnvelopeAuthOidc | EnvelopeAuthOauth2Client;

export interface AgentRpcEnvelope {
  version: typeof ENVELOPE_VERSION;
  kind: EnvelopeKind;
  messageId: string;
  correlationId: string;
  /** messageId of the envelope whose handling produced this one. */
  causedBy?: string;
  /** `agent://<id>` */
  from: string;
  /** `agent://<id>` */
  to: string;
  capability: string;
  /** `<scheme>://<topic>` where responses to a request go. */
  replyTo?: string;
  /** Absolute deadline, milliseconds since the Unix epoch. */
  deadline?: number;
  tenantId?: string;
  headers?: Record<string, string>;
  /** Any JSON value, null included; the key itself is required. */
  payload: unknown;
  auth?: EnvelopeAuth;
}

const messageIdSchema = z.string().regex(MESSAGE_ID_RE, 'must be 1-128 characters of [A-Za-z0-9._:-]');
const agentUriSchema = z.string().regex(AGENT_URI_RE, 'must be agent://<id> with id [A-Za-z0-9][A-Za-z0-9._-]{0,127}');
const nonEmpty = z.string().min(1);

export const envelopeAuthSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('internal') }),
  z.strictObject({ kind: z.literal('hmac'), keyId: nonEmpty, signature: nonEmpty }),
  z.strictObject({ kind: z.literal('oidc'), token: nonEmpty, keyId: nonEmpty.optional() }),
  z.strictObject({ kind: z.literal('oauth2-client'), token: nonEmpty, scope: z.string().optional() }),
]);

export const envelopeSchema = z.strictObject({
  version: z.literal(ENVELOPE_VERSION),
  kind: z.enum(ENVELOPE_KINDS),
  messageId: messageIdSchema,
  correlationId: messageIdSchema,
  causedBy: messageIdSchema.optional(),
  from: agentUriSchema,
  to: agentUriSchema,
  capability: z.string().regex(CAPABILITY_RE, 'must be [A-Za-z0-9$][A-Za-z0-9._:/-]{0,127}'),
  replyTo: z.string().regex(REPLY_TO_RE, 'must be <scheme>://<topic> with a lower-case URI scheme ([a-z][a-z0-9+.-]*)').optional(),
  // zod's int() already stops at Number.MAX_SAFE_INTEGER.
  deadline: z.number().int().min(0).optional(),
  tenantId: z.string().regex(TENANT_ID_RE, 'must be 1-128 characters of [A-Za-z0-9._-]').optional(),
  headers: z.record(z.string(), z.string()).optional(),
  // z.unknown() also accepts a missing key; the refinement makes the key mandatory.
  payload: z.unknown().refine((value): boolean => value !== undefined, 'payload is required (null is allowed)'),
  auth: envelopeAuthSchema.optional(),
});

// Compile-time guard: the hand-written interface and the schema must describe the same shape.
type Inferred = z.infer<typeof envelopeSchema>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesInterface: Same<Inferred, AgentRpcEnvelope> = true;
void schemaMatchesInterface;

export function isAgentId(id: string): boolean {
  return AGENT_ID_RE.test(id);
}

/** `reviewer` → `agent://reviewer`. Throws TypeError for an id the schema would reject. */
export function agentUri(id: string): string {
  if (!AGENT_ID_RE.test(id)) throw new TypeError(`agentUri: invalid agent id ${JSON.stringify(id)}`);
  return AGENT_URI_PREFIX + id;
}

/** `agent://reviewer` → `reviewer`. Throws TypeError for anything that is not an agent URI. */
export function agentIdOf(uri: string): string {
  if (!AGENT_URI_RE.test(uri)) throw new TypeError(`agentIdOf: not an agent URI ${JSON.stringify(uri)}`);
  return uri.slice(AGENT_URI_PREFIX.length);
}
