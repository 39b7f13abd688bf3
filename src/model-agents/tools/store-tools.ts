import type { ExecutionStore } from '../../rpc/index.js';
import { defineTool, type Tool } from '../tool.js';

/**
 * `store_get({key})` and `store_set({key, value})`: the shared store of a remote execution
 * (a Redis both the executor and this worker point at). Offered only when the request
 * named one; what is set there reaches the executor through the store, not the reply.
 */
export function storeTools(store: ExecutionStore): Tool[] {
  const key = { type: 'string', minLength: 1, maxLength: 512, description: 'The key.' };
  return [
    defineTool<{ key: string }>({
      name: 'store_get',
      description: "Reads a value from the caller's shared store. Answers the value, or says the key is not set.",
      parameters: { type: 'object', properties: { key }, required: ['key'], additionalProperties: false },
      async run(args) {
        const value = await store.get(args.key);
        return { output: value ?? `(${args.key} is not set)` };
      },
    }),
    defineTool<{ key: string; value: string }>({
      name: 'store_set',
      description: "Writes a value to the caller's shared store, where the caller and later steps read it.",
      parameters: { type: 'object', properties: { key, value: { type: 'string', maxLength: 1_000_000, description: 'The value.' } }, required: ['key', 'value'], additionalProperties: false },
      async run(args) {
        await store.set(args.key, args.value);
        return { output: `${args.key} set.` };
      },
    }),
  ];
}
