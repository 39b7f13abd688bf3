/**
 * A secret handed to a provider: a resolved secret reference (whose `reveal()` gives the
 * value and whose string form is redacted) or, in code, a plain string.
 */
export type SecretInput = string | { reveal(): string };

export function revealSecret(secret: SecretInput): string {
  return typeof secret === 'string' ? secret : secret.reveal();
}
