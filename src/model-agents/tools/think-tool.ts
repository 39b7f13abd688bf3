import { defineTool, type Tool } from '../tool.js';

export const THINK = 'think';

/**
 * `think({thought})`: does nothing and says so. Writing a thought down as a tool call gives
 * the model room to reason between steps (weigh a tool's result, plan the next calls)
 * without answering the user or changing anything.
 */
export function thinkTool(): Tool {
  return defineTool<{ thought: string }>({
    name: THINK,
    description:
      'Use this to think something through before acting: plan the next steps, check a tool result against the task, or weigh options. ' +
      'It changes nothing and fetches nothing; the thought is only recorded in the conversation.',
    parameters: {
      type: 'object',
      properties: { thought: { type: 'string', minLength: 1, description: 'The reasoning to write down.' } },
      required: ['thought'],
      additionalProperties: false,
    },
    async run() {
      return { output: 'Thought noted.' };
    },
  });
}
