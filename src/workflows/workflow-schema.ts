import { z } from 'zod';
import { agentBlockSchema, agentMessageSchema } from '../model-agents/index.js';
import { alias, seconds } from '../yaml/index.js';
import { AGENT_URI_RE, CAPABILITY_RE } from '../envelope/index.js';
import { OUTPUT_NAME_RE, PARAM_NAME_RE } from './substitute.js';

// Names end up in file paths (`runs/<workflow>/…`), log lines and error messages: a narrow alphabet keeps them safe.
export const WORKFLOW_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const nameSchema = z.string().regex(WORKFLOW_NAME_RE, 'must be [A-Za-z0-9][A-Za-z0-9._-]{0,127}');

/** A week: long enough for any step, short enough to catch a unit mistake (seconds written as milliseconds). */
export const MAX_STEP_TIMEOUT_MS = 604_800_000;

/** Fields every step has, whatever its type. */
const stepFields = {
  name: nameSchema.describe('The step, unique in the workflow; `depends` names steps by it.'),
  depends: z.array(nameSchema).optional().describe('Steps that must succeed before this one starts.'),
  output: z.string().regex(OUTPUT_NAME_RE, 'must be an upper-case variable name: [A-Z_][A-Z0-9_]*').optional().describe('The variable that holds the step\'s output, for the steps that depend on it.'),
  timeoutMs: alias(
    z.int().min(1).max(MAX_STEP_TIMEOUT_MS, 'must be at most a week (604,800,000 ms)').optional().describe('Milliseconds before the step is aborted with EAGENTRPC_WORKFLOW_STEP_TIMEOUT (at most a week).'),
    seconds('timeout_sec'),
  ),
};

/** A model agent, configured as an agent.yaml `type: agent` handler is (docs/agents.md). */
export const agentStepSchema = z.strictObject({
  ...stepFields,
  type: z.literal('agent').describe('A model agent in a tool loop.'),
  worker: nameSchema.optional().describe('A remote worker that runs the step; here when omitted.'),
  agentId: alias(nameSchema.optional().describe('With `worker`: the worker\'s agent that runs the step; default this agent\'s own id.'), 'agent_id'),
  capability: z.string().regex(CAPABILITY_RE, 'must be a capability name').optional().describe('With `worker`: the capability called on the worker\'s agent (it takes `{message}`); default its `session.capability`.'),
  agent: agentBlockSchema,
  messages: z
    .array(agentMessageSchema.extend({ content: z.string().min(1).describe('The text; `${VAR}` and `$1` are substituted.') }))
    .min(1)
    .describe('The step\'s own messages, after the transcripts of the agent steps it depends on.'),
});
export type AgentStep = z.infer<typeof agentStepSchema>;

/** A call to any capability of the fleet, made as `agent-rpc call` makes it. */
export const callStepSchema = z.strictObject({
  ...stepFields,
  type: z.literal('call').describe('A call to a capability.'),
  to: z.string().regex(AGENT_URI_RE, 'must be agent://<id>').describe('The agent called.'),
  capability: z.string().regex(CAPABILITY_RE, 'must be a capability name').describe('The capability called.'),
  payload: z.json().default({}).describe('The request payload; `${VAR}` and `$1` are substituted in every string.'),
  // Declared only to say why it is refused: a call step goes wherever its agent is.
  worker: z.never({ error: 'only agent steps run on a worker; a call goes to its agent' }).optional(),
});
export type CallStep = z.infer<typeof callStepSchema>;

export const workflowStepSchema = z.discriminatedUnion('type', [agentStepSchema, callStepSchema]);
export type WorkflowStep = z.infer<typeof workflowStepSchema>;

/** workflow.yaml, version 1 (docs/workflows.md); the design documents' snake_case names (`timeout_sec` in seconds) are aliases. */
export const workflowSchema = z.strictObject({
  version: z.literal(1).describe('The file format version.'),
  name: nameSchema.describe('The workflow; run records are kept under `runs/<name>/`.'),
  params: z
    .record(
      z.string().regex(PARAM_NAME_RE, 'must be a variable name: [A-Za-z_][A-Za-z0-9_]*'),
      // `PORT: 5432` is meant as text: substitution only ever produces text.
      z.union([z.string(), z.number(), z.boolean()]).transform(String),
    )
    .default({})
    .describe('Named params and their default values; `--param NAME=VALUE` overrides them.'),
  steps: z.array(workflowStepSchema).min(1).describe('The steps; their order does not matter, `depends` does.'),
});
export type Workflow = z.infer<typeof workflowSchema>;
