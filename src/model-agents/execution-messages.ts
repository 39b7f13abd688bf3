import type { ExecutionMessage, ExecutionScope } from '../rpc/index.js';
import type { ModelMessage } from './models/model-client.js';
import { THINK } from './tools/think-tool.js';

/**
 * A remote execution's conversation as model messages. Only user and assistant turns can
 * stand alone (a tool result needs the call that asked for it), so system and tool
 * messages are given to the model as user turns that say what they were.
 */
export function contextMessages(scope: ExecutionScope): ModelMessage[] {
  return scope.messages.map(modelMessageOf);
}

/** One message of an execution context as a model message (system and tool ones as labelled user turns). */
export function modelMessageOf(message: ExecutionMessage): ModelMessage {
  if (message.role === 'user' || message.role === 'assistant') return { role: message.role, content: message.content };
  const label = message.role === 'tool' ? `[result of tool ${message.name ?? '?'}]` : '[system]';
  return { role: 'user', content: `${label} ${message.content}` };
}

/** A model message as an execution context carries it: tool calls stay behind, a tool result keeps its tool's name. */
export function executionMessageOf(message: ModelMessage): ExecutionMessage {
  return message.role === 'tool' ? { role: 'tool', content: message.content, name: message.name } : { role: message.role, content: message.content };
}

/** Records a message the loop added in the delta; `think` calls are also the thoughts. */
export function recordAdded(scope: ExecutionScope, message: ModelMessage): void {
  const added = executionMessageOf(message);
  scope.added.messages.push(added);
  if (message.role !== 'assistant') return;
  for (const call of message.toolCalls ?? []) {
    const thought = call.name === THINK ? (call.arguments as { thought?: unknown } | null)?.thought : undefined;
    if (typeof thought === 'string') scope.added.thoughts.push(thought);
  }
}
