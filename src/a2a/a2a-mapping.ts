import type { AgentCard, Message, Part, Task, TaskStatus } from '@a2a-js/sdk';
import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RPC_ERROR_CODES, RpcError } from '../errors.js';
import { FLOW_HEADER } from '../guard/index.js';
import type { CapabilitiesAnswer } from '../rpc/index.js';

/**
 * How envelopes and A2A objects map onto each other (A2A protocol v1.0, the version the
 * `@a2a-js/sdk` speaks), for both halves: the client (the `a2a` gateway) and the A2A server.
 * Pure functions and names; the SDK is imported for its types only.
 */

/** Where A2A puts an agent's card, under its base URL (A2A §8.2). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** The A2A task states by their proto names (the SDK's TaskState enum values, kept here as data). */
export const TASK_STATES = {
  submitted: 1,
  working: 2,
  completed: 3,
  failed: 4,
  canceled: 5,
  inputRequired: 6,
  rejected: 7,
  authRequired: 8,
} as const;
const ROLE_USER = 1;

const STATE_NAMES: Readonly<Record<number, string>> = {
  1: 'submitted',
  2: 'working',
  3: 'completed',
  4: 'failed',
  5: 'canceled',
  6: 'input-required',
  7: 'rejected',
  8: 'auth-required',
};

export function stateName(status: TaskStatus | undefined): string {
  return STATE_NAMES[status?.state ?? 0] ?? 'unspecified';
}

/** A state after which the task does not change (input-required and auth-required wait for a client this gateway is not). */
export function isFinal(status: TaskStatus | undefined): boolean {
  const state = status?.state;
  return state !== undefined && state !== 0 && state !== TASK_STATES.submitted && state !== TASK_STATES.working;
}

/** What the peer is told about the call, besides the content: the flow, the call and the skill. */
export interface CallMetadata {
  readonly correlationId: string;
  readonly messageId: string;
  readonly capability: string;
  readonly from: string;
  /** The call's deadline (epoch ms): an agent-rpc A2A server ends its own request there. */
  readonly deadline?: number;
  /**
   * The call's flow: its correlationId, the request that caused it and its `agent-rpc-flow`
   * header (this hop counted). An agent-rpc A2A server gives its request this flow, so its
   * runaway guard sees the chain across the A2A hop. Other A2A agents ignore it.
   */
  readonly agentRpcFlow?: { readonly correlationId: string; readonly causedBy: string; readonly state: string };
}

export function callMetadata(envelope: AgentRpcEnvelope): CallMetadata {
  const flowState = envelope.headers?.[FLOW_HEADER];
  return {
    correlationId: envelope.correlationId,
    messageId: envelope.messageId,
    capability: envelope.capability,
    from: envelope.from,
    ...(envelope.deadline === undefined ? {} : { deadline: envelope.deadline }),
    ...(envelope.causedBy !== undefined && flowState !== undefined ? { agentRpcFlow: { correlationId: envelope.correlationId, causedBy: envelope.causedBy, state: flowState } } : {}),
  };
}

/**
 * The A2A message of a request: a string payload (or the payload's string `message` field)
 * is a text part, anything else a data part. The capability travels as `skillId` in the
 * metadata, next to the flow's correlationId and the request's messageId.
 */
export function requestMessage(envelope: AgentRpcEnvelope): Message {
  const payload = envelope.payload;
  const text = typeof payload === 'string' ? payload : onlyMessageField(payload);
  const part = text !== undefined ? textPart(text) : dataPart(payload ?? null);
  return {
    messageId: envelope.messageId,
    contextId: '',
    taskId: '',
    role: ROLE_USER,
    parts: [part],
    metadata: { ...callMetadata(envelope), skillId: envelope.capability },
    extensions: [],
    referenceTaskIds: [],
  };
}

/** `{message: "…"}` with nothing else: the form a skill without an input schema is offered to models in. */
function onlyMessageField(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const keys = Object.keys(payload);
  const message = (payload as { message?: unknown }).message;
  return keys.length === 1 && typeof message === 'string' ? message : undefined;
}

function partValue(part: Part): unknown {
  const content = part.content;
  if (content === undefined) return null;
  if (content.$case === 'raw') return { filename: part.filename, mediaType: part.mediaType, base64: Buffer.from(content.value).toString('base64') };
  if (content.$case === 'url') return { filename: part.filename, mediaType: part.mediaType, url: content.value };
  return content.value ?? null;
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** The text parts of a message, joined by newlines (progress and errors are shown as text); undefined when it has none. */
export function textOf(message: Message | undefined): string | undefined {
  const texts = (message?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
  return texts.length === 0 ? undefined : texts.join('\n');
}

/**
 * The result of a finished task or a direct message: one data part is its value, text
 * only is the joined text, anything else the list of part values.
 */
export function resultOf(parts: readonly Part[]): unknown {
  if (parts.length === 1 && parts[0]!.content?.$case === 'data') return parts[0]!.content.value ?? null;
  if (parts.length > 0 && parts.every((part) => part.content?.$case === 'text')) return parts.map((part) => partValue(part)).join('');
  return parts.map(partValue);
}

export function taskResult(task: Task): unknown {
  return resultOf(task.artifacts.flatMap((artifact) => artifact.parts));
}

/** What a progress response carries for a status update: the state and its message's text. */
export function progressOf(status: TaskStatus | undefined): { state: string; message?: string } {
  const text = textOf(status?.message);
  return text === undefined ? { state: stateName(status) } : { state: stateName(status), message: text };
}

const CODE_IN_TEXT = /\b(EAGENTRPC_[A-Z_]+)\b/;

/**
 * A task that did not complete, as the caller's typed error: the peer's own EAGENTRPC_*
 * code when its status message names one of ours (an agent-rpc agent served over A2A),
 * else PEER_INPUT_REQUIRED or PEER_FAILED.
 */
export function taskError(url: string, taskId: string, status: TaskStatus | undefined): RpcError {
  const state = stateName(status);
  const text = textOf(status?.message) ?? `the task ended ${state}`;
  if (state === 'input-required' || state === 'auth-required') {
    return new RpcError('EAGENTRPC_PEER_INPUT_REQUIRED', `${url} asked for more input: ${text}`, { details: { url, taskId, state, question: text } });
  }
  const named = CODE_IN_TEXT.exec(text)?.[1];
  const code = named !== undefined && Object.hasOwn(RPC_ERROR_CODES, named) ? named : 'EAGENTRPC_PEER_FAILED';
  return new RpcError(code, text, { details: { url, taskId, state } });
}

/** The input schema a skill is offered with: the card has none, so one text message. */
export const SKILL_INPUT_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string', description: 'What to ask the agent, in plain language.' } },
  required: ['message'],
  additionalProperties: false,
} as const;

/** `$capabilities` of an A2A peer: its card's skills, each with its description. */
export function capabilitiesOfCard(agent: string, card: AgentCard): CapabilitiesAnswer & { capabilities: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> } {
  return {
    agent,
    capabilities: card.skills.map((skill) => ({
      name: skill.id,
      description: [skill.name, skill.description].filter((s) => s.length > 0).join(': '),
      inputSchema: SKILL_INPUT_SCHEMA as unknown as Record<string, unknown>,
    })),
  };
}
