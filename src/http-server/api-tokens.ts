import { createHash, timingSafeEqual } from 'node:crypto';
import type { SecretValue } from '../secrets/index.js';
import type { Principal, Role } from '../auth/index.js';

export interface ApiTokenEntry {
  readonly user: string;
  readonly role: Role;
  readonly token: SecretValue;
}

/**
 * Bearer tokens of the node's HTTP API. Only digests are kept; a presented token is
 * compared against every entry in constant time, so neither timing nor the position of
 * a match tells an attacker anything.
 */
export class ApiTokens {
  private readonly entries: Array<{ digest: Buffer; principal: Principal }>;

  constructor(entries: readonly ApiTokenEntry[]) {
    const seen = new Set<string>();
    this.entries = entries.map((entry, index) => {
      const digest = digestOf(entry.token.reveal());
      const key = digest.toString('hex');
      if (seen.has(key)) throw new TypeError(`api.tokens[${index}]: the same token is listed twice`);
      seen.add(key);
      return { digest, principal: { user: entry.user, role: entry.role } };
    });
  }

  get size(): number {
    return this.entries.length;
  }

  /** The principal for an `Authorization` header, or undefined when it carries no known bearer token. */
  authenticate(header: string | undefined): Principal | undefined {
    const match = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? '');
    if (!match) return undefined;
    const presented = digestOf(match[1]!);
    let found: Principal | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, presented)) found = entry.principal;
    }
    return found;
  }
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
