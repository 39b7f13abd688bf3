import { z } from 'zod';
import { alias } from '../yaml/index.js';
import { bashPolicySchema } from './bash/bash-policy.js';
import { toolEntryProblem } from './tool-selection.js';

const toolEntry = z.string().superRefine((entry, ctx) => {
  const problem = toolEntryProblem(entry);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * The `agent` block of a model agent: model, tools, memory, prompt, limits. Shared by
 * agent.yaml handlers and workflow agent steps, so a step is configured exactly like a handler.
 */
export const agentBlockSchema = z
  .strictObject({
    model: z.string().min(1).optional().describe('A `models[].id`; the default model when omitted.'),
    tools: z
      .strictObject({
        enabled: z.array(toolEntry).optional().describe('The tools offered, exactly: built-in names, remote_agent, list_remote_nodes and `peer:<glob>` over `agent://<id>/<capability>`. Default: every built-in and every peer capability the permissions allow.'),
        bashPolicy: alias(bashPolicySchema.optional().describe('Which command lines bash runs, asks about or refuses (docs/agents.md).'), 'bash_policy'),
      })
      .optional()
      .describe('Tool selection and the bash policy.'),
    memory: z
      .strictObject({ enabled: z.boolean().default(false).describe('Load `<dataDir>/memory/global/*.md` and the agent\'s own memory into the system prompt.') })
      .optional()
      .describe('Persistent memory across calls.'),
    prompt: z.string().optional().describe('Instructions appended to the built-in system prompt.'),
    maxIterations: alias(z.int().min(1).max(1_000).default(50).describe('Model requests before the loop gives up with EAGENTRPC_AGENT_MAX_ITERATIONS.'), 'max_iterations'),
    safeMode: alias(z.boolean().default(true).describe('Ask before commands the bash policy denies with `hitl`; false runs them without asking.'), 'safe_mode'),
  })
  .default({ maxIterations: 50, safeMode: true })
  .describe('The model agent; every field has a default.');
export type AgentBlockConfig = z.infer<typeof agentBlockSchema>;

/** One message of the conversation a model agent starts from. */
export const agentMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']).describe('Who says it.'),
  content: z.string().min(1).describe('The text; `${input.<path>}` takes values from the request payload.'),
});
export type AgentMessageConfig = z.infer<typeof agentMessageSchema>;

/**
 * agent.yaml `handlers.<capability>` with `type: agent`: the capability is run by a model in
 * a tool loop (docs/agents.md). The design documents' snake_case names are aliases.
 */
export const agentHandlerSchema = z.strictObject({
  type: z.literal('agent').describe('A model agent: the capability is answered by a model in a tool loop (docs/agents.md).'),
  agent: agentBlockSchema,
  messages: z.array(agentMessageSchema).min(1).describe('The conversation the loop starts from.'),
});
export type AgentHandlerConfig = z.infer<typeof agentHandlerSchema>;
