/** What a masked secret is replaced with. */
export const MASKED = '[secret]';

// Shorter values would mask ordinary words and numbers, and are no secret worth the name.
const MIN_SECRET_LENGTH = 6;
const SECRET_NAME_RE = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** Whether an environment variable's name says it holds a secret (`*_KEY`, `*TOKEN*`, `*PASSWORD*`, …). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME_RE.test(name);
}

/**
 * The values an agent holds as secrets (resolved secret references, API tokens, keys, and
 * the environment's secret-named variables), cut out of every text before it reaches a
 * model or a log line: tool arguments, tool output, prompts, answers.
 */
export class SecretMasker {
  private secrets: string[] = [];

  add(value: string): void {
    if (value.length < MIN_SECRET_LENGTH || this.secrets.includes(value)) return;
    // Longest first, so a secret containing another is cut whole.
    this.secrets = [...this.secrets, value].sort((a, b) => b.length - a.length);
  }

  /** Adds the values of the environment's variables named like secrets (`*_KEY`, `*TOKEN*`, `*PASSWORD*`, …). */
  addEnvironment(env: NodeJS.ProcessEnv): void {
    for (const [name, value] of Object.entries(env)) if (value !== undefined && isSecretName(name)) this.add(value);
  }

  /** The values, for tools that must keep them out of their own output (the bash tool's environment). */
  get values(): readonly string[] {
    return this.secrets;
  }

  mask(text: string): string {
    let masked = text;
    for (const secret of this.secrets) if (masked.includes(secret)) masked = masked.split(secret).join(MASKED);
    return masked;
  }
}
