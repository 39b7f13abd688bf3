import type { Message, Part } from '@a2a-js/sdk';
import { replyText } from '../../sessions/index.js';
import { dataPart, textOf, textPart } from '../index.js';

/** What a message asks of the agent: a capability and its payload, or why it cannot be served. */
export type CallTarget =
  | { readonly capability: string; readonly payload: unknown }
  | { readonly code: 'EAGENTRPC_UNKNOWN_CAPABILITY'; readonly reason: string }
  | { readonly malformed: string };

export interface TargetOptions {
  readonly capabilities: ReadonlySet<string>;
  readonly defaultCapability?: string;
}

/**
 * Which capability a message calls, and with what: the first data part with a string
 * `capability` calls that one with its `input` (default `{}`); else the message's metadata
 * `skillId` (what agent-rpc's own A2A client sends) names it; else the agent's default
 * capability (agent.yaml `session.capability`). Without a naming data part, the first data
 * part is the payload, or else the text, sent as `{message}` (text parts joined by newlines).
 */
export function callTargetOf(message: Message, options: TargetOptions): CallTarget {
  const data = message.parts.flatMap((part) => (part.content?.$case === 'data' ? [part.content.value as unknown] : []));
  const named = data.find((value): value is { capability: string; input?: unknown } => isRecord(value) && typeof value['capability'] === 'string');
  if (named) return known(named.capability, options) ?? { capability: named.capability, payload: named.input ?? {} };
  const skillId = message.metadata?.['skillId'];
  const capability = typeof skillId === 'string' ? skillId : options.defaultCapability;
  if (capability === undefined) {
    return { code: 'EAGENTRPC_UNKNOWN_CAPABILITY', reason: 'the message names no capability (a data part {"capability": "<skill id>", "input": {...}}, or metadata skillId) and the agent has no default one (agent.yaml session.capability)' };
  }
  const unknown = known(capability, options);
  if (unknown) return unknown;
  if (data.length > 0) return { capability, payload: data[0] };
  const text = textOf(message);
  if (text === undefined) return { malformed: 'the message has neither a text part nor a data part' };
  return { capability, payload: { message: text } };
}

/** Undefined when the agent has `capability`; else why the message cannot be served. */
function known(capability: string, options: TargetOptions): CallTarget | undefined {
  if (options.capabilities.has(capability)) return undefined;
  return { code: 'EAGENTRPC_UNKNOWN_CAPABILITY', reason: `the agent has no capability ${capability}; its skills are ${[...options.capabilities].join(', ')}` };
}

/** A result as parts: a string is text; JSON is a data part, led by its text (`text`, `message`…) when it has one. */
export function resultParts(data: unknown): Part[] {
  if (typeof data === 'string') return [textPart(data)];
  const parts: Part[] = [];
  if (isRecord(data) && ['text', 'message', 'output', 'answer'].some((field) => typeof data[field] === 'string')) parts.push(textPart(replyText(data)));
  parts.push(dataPart(data ?? null));
  return parts;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
