import { startScriptedModelServer, type RecordedModelRequest, type ScriptedAnswer } from '../../src/testing/scripted-model-server.js';

/**
 * Which model serves the triager (agents/triager/agent.yaml `models:`): OpenAI when
 * OPENAI_API_KEY is set, else Anthropic when ANTHROPIC_API_KEY is, else a scripted model
 * server on loopback, so the demo runs without a key and shows the same things every time.
 */
export interface TriagerModel {
  /** What agent.yaml reads: QUICKSTART_MODEL_ID, QUICKSTART_MODEL, QUICKSTART_SCRIPTED_MODEL_URL. */
  readonly env: Record<string, string>;
  /** Says which model it is, for the output. */
  readonly description: string;
  close(): Promise<void>;
}

const DEFAULT_MODELS = { openai: 'gpt-5-mini', anthropic: 'claude-haiku-4-5' } as const;

export async function startTriagerModel(env: NodeJS.ProcessEnv): Promise<TriagerModel> {
  const provider = env['OPENAI_API_KEY'] ? 'openai' : env['ANTHROPIC_API_KEY'] ? 'anthropic' : undefined;
  if (provider !== undefined) {
    const model = env['QUICKSTART_MODEL'] ?? DEFAULT_MODELS[provider];
    // agent.yaml names the scripted server's address whichever model serves; this one is never asked.
    return { env: { QUICKSTART_MODEL_ID: provider, QUICKSTART_MODEL: model, QUICKSTART_SCRIPTED_MODEL_URL: 'http://127.0.0.1:9' }, description: `${provider} ${model}`, close: async () => {} };
  }
  const server = await startScriptedModelServer();
  // Each turn puts itself back, so the triager answers every call, the CLI's included.
  const turn = (request: RecordedModelRequest): ScriptedAnswer => {
    server.script(turn);
    return triageStep(toolResultsIn(request));
  };
  server.script(turn);
  return {
    env: { QUICKSTART_MODEL_ID: 'scripted', QUICKSTART_MODEL: DEFAULT_MODELS.openai, QUICKSTART_SCRIPTED_MODEL_URL: server.url },
    description: `the scripted model server at ${server.url} (set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real model)`,
    close: () => server.close(),
  };
}

/** The log the demo attaches to the issue, in the triager's working directory. */
export const CRASH_LOG = `09:12:03 INFO  auth: login attempt user=4411
09:12:03 ERROR auth: TypeError: Cannot read properties of undefined (reading 'exp') at decodeLegacyToken (src/auth/legacy-token.js:42)
09:12:03 ERROR auth: login failed user=4411 status=500 (src/auth/session.ts:88)
09:12:07 INFO  auth: login attempt user=4412
`;

/**
 * What a model would do with the issue, one step per request, chosen by how many tool
 * results the conversation holds: a command the policy allows, a peer capability, a
 * command it denies (so the caller is asked), then the answer. Token counts grow as the
 * conversation does; from the second request on, its start comes from the prompt cache.
 */
function triageStep(done: number): ScriptedAnswer {
  const usage = { inputTokens: 1_180 + 140 * done, outputTokens: 30, cachedInputTokens: done === 0 ? 0 : 1_024 };
  switch (done) {
    case 0:
      return { toolCalls: [{ name: 'bash', arguments: { command: 'grep ERROR crash.log' } }], usage };
    case 1:
      return { toolCalls: [{ name: 'linter__lint', arguments: { files: ['src/auth/session.ts', 'src/auth/legacy-token.js'] } }], usage };
    case 2:
      return { toolCalls: [{ name: 'bash', arguments: { command: 'rm crash.log' } }], usage };
    default:
      return {
        text:
          'Severity high: logins with a legacy session token fail with a 500. Likely cause: decodeLegacyToken (src/auth/legacy-token.js:42) reads `exp` of an undefined payload; ' +
          'the linter flags that file too. Team: auth.',
        usage: { ...usage, outputTokens: 74 },
      };
  }
}

/** Tool results in an OpenAI Chat Completions request (the scripted model is openai-compatible). */
function toolResultsIn(request: RecordedModelRequest): number {
  const messages = (request.body as { messages?: Array<{ role?: string }> }).messages ?? [];
  return messages.filter((message) => message.role === 'tool').length;
}
