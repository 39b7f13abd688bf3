import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { AuditLog } from '../audit/index.js';
import type { Logger } from '../logger.js';
import type { ApprovalAnswer, ApprovalPrompt } from '../rpc/index.js';
import type { SessionFlow } from '../remote-nodes/index.js';
import type { Principal } from '../auth/index.js';

/** A JSON Schema for a tool's arguments: always an object. */
export interface ToolParameters {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, Record<string, unknown>>>;
  readonly required?: readonly string[];
  readonly additionalProperties: false;
}

/** What a tool runs with: who the agent acts for, where decisions are recorded, how to stop. */
export interface ToolContext {
  readonly principal: Principal;
  readonly agentId: string;
  readonly audit: AuditLog;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
  readonly correlationId?: string;
  /** The capability whose model agent runs the tool, for audit records. */
  readonly capability?: string;
  /** The flow the agent runs in, for tools that continue it on another node (remote_agent). */
  readonly flow?: SessionFlow;
  /** The agent's working directory (bash runs there; read and patch resolve paths against it). */
  readonly workDir?: string;
  /** Asks whoever can answer (a session's user, the first caller up the chain). Absent: nobody can, every prompt is declined. */
  readonly requestApproval?: (prompt: ApprovalPrompt) => Promise<ApprovalAnswer>;
}

/** What the model sees of a tool's run. Errors are results too: the model reads them and adapts. */
export interface ToolResult {
  readonly output: string;
  readonly isError?: boolean;
}

/**
 * A capability offered to an LLM agent loop: a name and description the model reads, a
 * JSON Schema for its arguments, and `execute`, which validates the arguments first.
 */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolParameters;
  execute(args: unknown, context: ToolContext): Promise<ToolResult>;
}

const ajv = new Ajv2020({ allErrors: false, strict: false });

/** A tool whose `run` only ever sees arguments that match `parameters`. */
export function defineTool<A>(spec: { name: string; description: string; parameters: ToolParameters; run(args: A, context: ToolContext): Promise<ToolResult> }): Tool {
  const validate: ValidateFunction = ajv.compile(spec.parameters as unknown as Record<string, unknown>);
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    async execute(args, context) {
      if (!validate(args)) {
        const problem = validate.errors?.[0];
        const where = problem?.instancePath || '(arguments)';
        return { isError: true, output: `Invalid arguments for ${spec.name}: ${where} ${problem?.message ?? 'invalid'}` };
      }
      return spec.run(args as A, context);
    },
  };
}

/** The refusal a tool gives a principal whose role lacks execute permission. */
export function permissionDenied(tool: string): ToolResult {
  return { isError: true, output: `Permission denied: ${tool} requires execute permission` };
}
