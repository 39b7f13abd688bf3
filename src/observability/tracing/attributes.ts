import type { Attributes } from '@opentelemetry/api';
import type { BrokerEndpoint } from '../../transport.js';

/** What a messaging span says about the message: an envelope has it all; a call being prepared has no id yet. */
export interface MessageFields {
  readonly capability: string;
  readonly from: string;
  readonly to: string;
  readonly correlationId: string;
  readonly messageId?: string;
  readonly kind?: string;
}

/**
 * Every span attribute and event name agent-rpc writes, in one place: the OpenTelemetry
 * semantic conventions for messaging, gen_ai and errors, and agent-rpc's own under
 * `agent_rpc.*`. Builders are pure, and only called for spans that record.
 */
export const ATTR = {
  messagingSystem: 'messaging.system',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messagingDestination: 'messaging.destination.name',
  messagingMessageId: 'messaging.message.id',
  messagingConversationId: 'messaging.message.conversation_id',
  peerService: 'peer.service',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  genAiOperation: 'gen_ai.operation.name',
  genAiProvider: 'gen_ai.provider.name',
  genAiRequestModel: 'gen_ai.request.model',
  genAiInputTokens: 'gen_ai.usage.input_tokens',
  genAiOutputTokens: 'gen_ai.usage.output_tokens',
  genAiFinishReasons: 'gen_ai.response.finish_reasons',
  genAiToolName: 'gen_ai.tool.name',
  genAiToolCallId: 'gen_ai.tool.call.id',
  capability: 'agent_rpc.capability',
  from: 'agent_rpc.from',
  to: 'agent_rpc.to',
  kind: 'agent_rpc.kind',
  attempt: 'agent_rpc.attempt',
  callStatus: 'agent_rpc.call.status',
  costUsd: 'agent_rpc.cost_usd',
  modelId: 'agent_rpc.model.id',
  cachedInputTokens: 'agent_rpc.usage.cached_input_tokens',
  toolOutcome: 'agent_rpc.tool.outcome',
  rule: 'agent_rpc.guard.rule',
  dlqKind: 'agent_rpc.dlq.kind',
  dlqReason: 'agent_rpc.dlq.reason',
  approvalType: 'agent_rpc.approval.type',
  approvalApproved: 'agent_rpc.approval.approved',
  approvalReason: 'agent_rpc.approval.reason',
} as const;

export const EVENT = {
  guardRefused: 'agent_rpc.guard.refused',
  permissionDenied: 'agent_rpc.permission.denied',
  approvalRequested: 'agent_rpc.approval.requested',
  approvalAnswered: 'agent_rpc.approval.answered',
  dlqRecorded: 'agent_rpc.dlq.recorded',
} as const;

export const MESSAGING_OPERATIONS = ['send', 'process'] as const;
export type MessagingOperation = (typeof MESSAGING_OPERATIONS)[number];

/** `send agents.b.requests`, `process agents.b.requests`: operation and destination, as the messaging conventions name spans. */
export function messagingSpanName(operation: MessagingOperation, destination: string): string {
  return `${operation} ${destination}`;
}

/**
 * A message sent or processed: system (the transport kind), destination, ids, who calls
 * whom for what, and the agent at the other end as `peer.service` (the callee on send, the
 * caller on process: an agent's id, the service name its process reports by default), so a
 * trace backend can draw the fleet's dependency graph; and the broker the message went
 * through as `server.address` / `server.port`, when the transport has one.
 */
export function messagingAttributes(operation: MessagingOperation, system: string, destination: string, message: MessageFields, broker?: BrokerEndpoint): Attributes {
  const attributes: Attributes = {
    [ATTR.messagingSystem]: system,
    [ATTR.peerService]: agentIdOf(operation === 'send' ? message.to : message.from),
    [ATTR.messagingOperationType]: operation,
    [ATTR.messagingOperationName]: operation,
    [ATTR.messagingDestination]: destination,
    [ATTR.messagingConversationId]: message.correlationId,
    [ATTR.capability]: message.capability,
    [ATTR.from]: message.from,
    [ATTR.to]: message.to,
  };
  if (message.messageId !== undefined) attributes[ATTR.messagingMessageId] = message.messageId;
  if (message.kind !== undefined) attributes[ATTR.kind] = message.kind;
  if (broker) {
    attributes[ATTR.serverAddress] = broker.address;
    if (broker.port !== undefined) attributes[ATTR.serverPort] = broker.port;
  }
  return attributes;
}

export interface ModelUsageAttributes {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
}

/** A model request before it is sent (`chat <model>`). */
export function modelRequestAttributes(modelId: string, provider: string, model: string): Attributes {
  return {
    [ATTR.genAiOperation]: 'chat',
    [ATTR.genAiProvider]: provider,
    [ATTR.genAiRequestModel]: model,
    [ATTR.modelId]: modelId,
  };
}

/** What a model request used: tokens as the provider counted them, and the cost from the model's pricing. */
export function modelUsageAttributes(usage: ModelUsageAttributes, costUsd: number, stopReason: string | undefined): Attributes {
  const attributes: Attributes = {
    [ATTR.genAiInputTokens]: usage.inputTokens,
    [ATTR.genAiOutputTokens]: usage.outputTokens,
    [ATTR.costUsd]: costUsd,
  };
  if (usage.cachedInputTokens > 0) attributes[ATTR.cachedInputTokens] = usage.cachedInputTokens;
  if (stopReason !== undefined) attributes[ATTR.genAiFinishReasons] = [stopReason];
  return attributes;
}

/** A model agent's tool call (`execute_tool <name>`). */
export function toolCallAttributes(name: string, callId: string): Attributes {
  return { [ATTR.genAiOperation]: 'execute_tool', [ATTR.genAiToolName]: name, [ATTR.genAiToolCallId]: callId };
}

/** `agent://b` → `b`. */
function agentIdOf(uri: string): string {
  return uri.startsWith('agent://') ? uri.slice('agent://'.length) : uri;
}
