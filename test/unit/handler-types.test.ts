import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HandlerType, HandlerTypeBase } from '../../src/config/handler-type.js';
import type { Handler } from '../../src/rpc/handler.js';
import { installHandlers } from '../../src/runtime/agent-handlers.js';
import { builtinHandlerTypes } from '../../src/runtime/handler-types.js';
import type { AgentStepRunner } from '../../src/workflows/step-runners.js';

/** A base whose node records what is installed; nothing else is read by installHandlers. */
function baseRecording(installed: Map<string, Handler>): HandlerTypeBase {
  return { node: { handle: (capability: string, handler: Handler) => void installed.set(capability, handler) } } as unknown as HandlerTypeBase;
}

describe('handler types', () => {
  it('handler types - the built-in list: code modules, model agents, workflows, remote workers, one each', () => {
    expect(builtinHandlerTypes.map((type) => type.name)).toEqual(['module', 'agent', 'workflow', 'remote-worker']);
  });

  it('handler types - every type offers its services before any builds its handlers, so a type listed first uses one listed after it', async () => {
    const runner: AgentStepRunner = () => Promise.resolve({ text: 'ran', transcript: [] });
    const seen: unknown[] = [];
    const user: HandlerType = {
      name: 'user',
      entrySchema: z.never(),
      // Asked once per section (handlers:, events:); its one entry is a request handler.
      handlers: ({ services, section }) => {
        if (section !== 'handlers') return new Map();
        seen.push(services.agentSteps);
        return new Map([['uses', (() => 'used') as Handler]]);
      },
    };
    const offerer: HandlerType = { name: 'offerer', entrySchema: z.never(), services: () => ({ agentSteps: () => runner }), handlers: () => new Map() };
    const installed = new Map<string, Handler>();
    const context = await installHandlers([user, offerer], baseRecording(installed));
    expect(seen).toHaveLength(1);
    expect(typeof seen[0]).toBe('function');
    expect(context.services.agentSteps?.('cap', undefined as never)).toBe(runner);
    expect([...installed.keys()]).toEqual(['uses']);
  });
});
