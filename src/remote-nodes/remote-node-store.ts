import { readFile } from 'node:fs/promises';
import { writeFileAtomically } from '../files/index.js';
import { silentLogger, type Logger } from '../logger.js';
import { SecretValue } from '../secrets/index.js';
import type { CredentialCipher } from './credential-cipher.js';
import type { RemoteAuthType, RemoteNode } from './remote-node.js';
import { checkStoredNode, type UnreadableNode } from './stored-node-check.js';

/** A node as the store keeps it: the credential only sealed. */
export interface StoredRemoteNode {
  readonly name: string;
  readonly description: string;
  readonly api_base_url: string;
  readonly auth_type: RemoteAuthType;
  readonly auth_token_sealed?: string;
  readonly skip_tls_verify: boolean;
  readonly timeout: number;
  readonly updated_at: number;
}

/** A node as the admin API writes it: `auth_token` in clear, sealed before it is stored. */
export type RemoteNodeInput = Omit<StoredRemoteNode, 'auth_token_sealed' | 'updated_at'> & { readonly auth_token?: string };

interface StoreFile {
  version: 1;
  nodes: unknown[];
}

/**
 * Remote nodes managed over the admin API, in one JSON file (`<dataDir>/remote-nodes.json`).
 * Credentials are sealed with AES-256-GCM before they reach the file and opened only in
 * memory, when a node is read for a call. Changes are serialized and each rewrite is
 * atomic and durable (writeFileAtomically), so concurrent API calls never lose one another's
 * change and a crash never leaves half a file.
 *
 * An entry that cannot be read — not a node record, or a credential that does not open
 * (changed, or sealed with another key) — is set aside when the file is opened: logged once
 * (its name and why, never a secret), reported by `unreadable()`, left out of `names()` and
 * `get()`, and written back unchanged, so nothing an operator could still repair is lost.
 * Replacing or deleting it by name clears it.
 */
export class RemoteNodeStore {
  private nodes = new Map<string, StoredRemoteNode>();
  /** Entries set aside, by name: the record as read, and why. */
  private broken = new Map<string, { readonly record: unknown } & UnreadableNode>();
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly file: string,
    private readonly cipher: CredentialCipher,
  ) {}

  static async open(file: string, cipher: CredentialCipher, logger: Logger = silentLogger): Promise<RemoteNodeStore> {
    const store = new RemoteNodeStore(file, cipher);
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== undefined) {
      const parsed = JSON.parse(text) as StoreFile;
      if (parsed?.version !== 1 || !Array.isArray(parsed.nodes)) throw new TypeError(`${file}: not a remote node store (version 1)`);
      parsed.nodes.forEach((record, index) => {
        const checked = checkStoredNode(record, index, (stored) => store.open(stored));
        if ('node' in checked) store.nodes.set(checked.node.name, checked.node);
        else {
          store.broken.set(checked.unreadable.name, { record, ...checked.unreadable });
          logger.warn({ file, node: checked.unreadable.name, code: checked.unreadable.code, reason: checked.unreadable.reason }, 'unreadable remote node store entry skipped');
        }
      });
    }
    return store;
  }

  names(): string[] {
    return [...this.nodes.keys()].sort();
  }

  /** True when the store holds an entry of this name, readable or not. */
  has(name: string): boolean {
    return this.nodes.has(name) || this.broken.has(name);
  }

  /** The entries set aside when the file was opened (by name), with the code and reason of each. */
  unreadable(): UnreadableNode[] {
    return [...this.broken.values()].map(({ name, code, reason }) => ({ name, code, reason })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The usable node, its credential opened in memory; undefined for an unknown or unreadable name. */
  get(name: string): RemoteNode | undefined {
    const stored = this.nodes.get(name);
    return stored ? this.open(stored) : undefined;
  }

  /** Throws EAGENTRPC_CREDENTIAL_INVALID when the seal does not authenticate. */
  private open(stored: StoredRemoteNode): RemoteNode {
    const token = stored.auth_token_sealed === undefined ? undefined : new SecretValue(this.cipher.open(stored.auth_token_sealed, stored.name));
    return {
      name: stored.name,
      description: stored.description,
      apiBaseUrl: stored.api_base_url,
      authType: stored.auth_type,
      ...(token ? { authToken: token } : {}),
      skipTlsVerify: stored.skip_tls_verify,
      timeoutMs: stored.timeout,
      source: 'store',
    };
  }

  /** Creates (`mustExist: false`), replaces (`true`) or upserts (undefined). False when the condition does not hold. */
  put(input: RemoteNodeInput, mustExist?: boolean): Promise<boolean> {
    return this.change(() => {
      const exists = this.nodes.has(input.name) || this.broken.has(input.name);
      if (mustExist !== undefined && exists !== mustExist) return false;
      this.broken.delete(input.name);
      const { auth_token, ...rest } = input;
      this.nodes.set(input.name, { ...rest, ...(auth_token !== undefined ? { auth_token_sealed: this.cipher.seal(auth_token, input.name) } : {}), updated_at: Date.now() });
      return true;
    });
  }

  delete(name: string): Promise<boolean> {
    return this.change(() => this.broken.delete(name) || this.nodes.delete(name));
  }

  private change(apply: () => boolean): Promise<boolean> {
    const next = this.writing.then(async () => {
      const previous = new Map(this.nodes);
      const previousBroken = new Map(this.broken);
      if (!apply()) return false;
      try {
        await this.persist();
      } catch (error) {
        this.nodes = previous;
        this.broken = previousBroken;
        throw error;
      }
      return true;
    });
    // The writer hears of a failure through `next`; `writing` only orders the next write after this one.
    this.writing = next.catch(() => undefined);
    return next;
  }

  private async persist(): Promise<void> {
    const body: StoreFile = { version: 1, nodes: [...this.nodes.values(), ...[...this.broken.values()].map((entry) => entry.record)] };
    await writeFileAtomically(this.file, JSON.stringify(body, null, 2), { mode: 0o600 });
  }
}
