import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { capabilitiesFileSchema, configKinds } from '../config/index.js';
import { loadYamlFile } from '../yaml/index.js';
import { generateClient } from '../codegen/index.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError, type CliCommand } from './command.js';

export const codegenCommand: CliCommand = {
  path: ['codegen'],
  summary: 'generate TypeScript types and a typed client from a capabilities.yaml',
  usage: `agent-rpc codegen <capabilities.yaml> --agent <id> [--out <file.ts>] [--runtime <module>]

  --agent    the id of the agent that serves these capabilities
  --out      where to write the module (default: stdout)
  --runtime  the module the client imports AgentNode from (default agent-rpc)`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { agent: { type: 'string' }, out: { type: 'string' }, runtime: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new UsageError('expected the path of a capabilities.yaml');
    if (values.agent === undefined) throw new UsageError('--agent <id> is required');
    const file = resolve(positionals[0]!);
    const loaded = await loadYamlFile(file, capabilitiesFileSchema(configKinds(io.plugins)), { env: io.env });
    const code = generateClient({ agentId: values.agent, capabilities: loaded.value.capabilities, source: positionals[0], ...(values.runtime ? { runtimeImport: values.runtime } : {}) });
    if (values.out === undefined) io.out(code.trimEnd());
    else await writeFile(values.out, code);
    return EXIT.ok;
  },
};
