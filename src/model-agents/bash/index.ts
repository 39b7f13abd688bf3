export { bashTool, type BashToolOptions } from './bash-tool.js';
export { bashPolicySchema, decideCommandLine, BASH_ACTIONS, DENY_BEHAVIORS, type BashAction, type BashCommandDecision, type BashDecision, type BashPolicy, type DenyBehavior } from './bash-policy.js';
export { parseCommandLine, type ParsedCommandLine, type SimpleCommand } from './command-line.js';
export { runBash, type BashRun, type RunBashOptions } from './run-bash.js';
export { scrubbedEnv, type ScrubbedEnvOptions } from './scrubbed-env.js';
