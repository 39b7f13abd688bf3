import { z } from 'zod';

/** agent.yaml `handlers.<capability>` with `type: workflow`: the capability runs a workflow file (docs/workflows.md). */
export const workflowHandlerSchema = z.strictObject({
  type: z.literal('workflow').describe('A workflow: the capability runs the steps of a workflow file (docs/workflows.md).'),
  file: z.string().min(1).describe('The workflow file, relative to agent.yaml.'),
});
export type WorkflowHandlerConfig = z.infer<typeof workflowHandlerSchema>;
