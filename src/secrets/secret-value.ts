import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A resolved secret. Its value is only reachable through `reveal()`: string conversion,
 * JSON, util.inspect (console.log, pino) and template literals all print `[redacted]`,
 * so a secret that reaches a log line or an error message by accident does not leak.
 */
export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  revealBytes(): Buffer {
    return Buffer.from(this.#value, 'utf8');
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }
}
