import type { AgentMemory } from './memory.js';

export interface SystemPromptParts {
  readonly agentUri: string;
  readonly capability: { readonly name: string; readonly description?: string };
  readonly workDir: string;
  readonly tools: readonly string[];
  /** The handler's `prompt`: appended to the built-in text. */
  readonly prompt?: string;
  readonly memory?: AgentMemory;
  /** Asked for a JSON answer of this shape. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/** The system prompt of a model agent: who it is, where it works, its memory, and the user's own instructions last. */
export function systemPrompt(parts: SystemPromptParts): string {
  const lines = [
    `You are ${parts.agentUri}, serving its capability "${parts.capability.name}"${parts.capability.description ? `: ${parts.capability.description}` : '.'}`,
    `Your working directory is ${parts.workDir}; bash runs there and relative paths resolve against it.`,
    parts.tools.length > 0
      ? 'Use the tools when they help. Tools named <agent>__<capability> call other agents of the fleet. When you are done, answer without calling a tool: that answer is the result.'
      : 'Answer directly: you have no tools.',
  ];
  if (parts.outputSchema) lines.push(`Your final answer must be only a JSON value matching this JSON Schema, with no other text:\n${JSON.stringify(parts.outputSchema)}`);
  if (parts.memory) {
    lines.push(`Your memory lives in ${parts.memory.dirs.join(' and ')} (Markdown files); read and patch may change it, and changes persist across calls.`);
    if (parts.memory.text) lines.push(`# Memory\n${parts.memory.text}`);
  }
  if (parts.prompt) lines.push(parts.prompt);
  return lines.join('\n\n');
}
