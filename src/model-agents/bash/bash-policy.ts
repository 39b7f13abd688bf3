import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { alias } from '../../yaml/aliases.js';
import { parseCommandLine } from './command-line.js';
import { writesInside } from './write-target.js';

export const BASH_ACTIONS = ['allow', 'deny'] as const;
export type BashAction = (typeof BASH_ACTIONS)[number];
/** What a denial does: `hitl` asks a human (in safe mode), `block` refuses outright. */
export const DENY_BEHAVIORS = ['hitl', 'block'] as const;
export type DenyBehavior = (typeof DENY_BEHAVIORS)[number];

const compiles = (pattern: string): boolean => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};

const ruleSchema = z.strictObject({
  name: z.string().min(1),
  /** A JavaScript regular expression, tested against each command's text (`rm -rf y`). */
  pattern: z.string().refine(compiles, { message: 'must be a valid JavaScript regular expression' }),
  action: z.enum(BASH_ACTIONS),
});

/** agent.yaml's bash policy, as users write it; the design documents' snake_case names are aliases. */
export const bashPolicySchema = z.strictObject({
  defaultBehavior: alias(z.enum(BASH_ACTIONS).default('allow'), 'default_behavior'),
  denyBehavior: alias(z.enum(DENY_BEHAVIORS).default('hitl'), 'deny_behavior'),
  rules: z.array(ruleSchema).default([]),
});
export type BashPolicy = z.infer<typeof bashPolicySchema>;

/** How one command fared: the rule that matched it (none: the default applied). */
export interface BashCommandDecision {
  readonly command: string;
  readonly rule: string | undefined;
  readonly action: BashAction;
}

export interface BashDecision {
  readonly action: BashAction;
  /** Set when the line is denied. */
  readonly behavior?: DenyBehavior;
  /** Names the first offending command and rule, or says why the line is allowed. */
  readonly reason: string;
  readonly decisions: readonly BashCommandDecision[];
}

const compiled = new WeakMap<object, RegExp>();
const regexOf = (rule: BashPolicy['rules'][number]): RegExp => {
  let regex = compiled.get(rule);
  if (regex === undefined) compiled.set(rule, (regex = new RegExp(rule.pattern)));
  return regex;
};

/**
 * Decides a command line: every command it would run is matched against the rules in
 * order (the first match wins; none matching, `defaultBehavior` applies); an output
 * redirection outside `workDir` is denied; a line that cannot be read is denied. The line
 * is allowed only when every part of it is.
 */
export async function decideCommandLine(line: string, policy: BashPolicy, workDir: string): Promise<BashDecision> {
  if (typeof workDir !== 'string' || !isAbsolute(workDir)) throw new TypeError('workDir must be an absolute path');
  const deny = (reason: string, decisions: readonly BashCommandDecision[] = []): BashDecision => ({ action: 'deny', behavior: policy.denyBehavior, reason, decisions });
  const parsed = await parseCommandLine(line);
  if (!parsed.ok) return deny(`cannot read the command line: ${parsed.reason}`);
  const decisions = parsed.commands.map((command): BashCommandDecision => {
    const rule = policy.rules.find((candidate) => regexOf(candidate).test(command.text));
    return { command: command.text, rule: rule?.name, action: rule?.action ?? policy.defaultBehavior };
  });
  const denied = decisions.find((decision) => decision.action === 'deny');
  if (denied !== undefined) {
    const by = denied.rule === undefined ? 'matched no rule (default deny)' : `matched rule ${denied.rule} (deny)`;
    return deny(`${denied.command} ${by}`, decisions);
  }
  for (const target of parsed.writes) {
    // After a `cd` the shell resolves a relative path elsewhere than here.
    if (parsed.changesDirectory && !isAbsolute(target)) return deny(`output redirection to ${target} after a change of directory: cannot tell where it writes`, decisions);
    if (!(await writesInside(target, workDir))) return deny(`output redirection to ${target} is outside the working directory`, decisions);
  }
  return { action: 'allow', reason: decisions.length === 0 ? 'the line runs no command' : 'every command is allowed', decisions };
}
