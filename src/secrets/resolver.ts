import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { describeSecretRef, parseSecretRef, type SecretRef } from './secret-ref.js';
import { SecretValue } from './secret-value.js';
import { VaultKvReader } from './vault-kv.js';

/** Resolves references of one scheme; register one for a scheme we do not ship. */
export interface SecretSchemeResolver {
  readonly scheme: string;
  resolve(ref: SecretRef, context: { readonly baseDir: string }): Promise<SecretValue>;
}

export interface SecretResolverOptions {
  /** Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where `secret://name` files live. Default `AGENT_RPC_SECRETS_DIR` or /run/secrets. */
  readonly secretsDir?: string;
  /** For `vault:`; default from `VAULT_ADDR`, `VAULT_TOKEN`, `VAULT_NAMESPACE`. */
  readonly vault?: VaultKvReader;
  /** Extra or replacement schemes. */
  readonly resolvers?: readonly SecretSchemeResolver[];
}

export interface SecretResolver {
  /** `baseDir` anchors relative `file:` paths: the directory of the config file that named the reference. */
  resolve(ref: string, baseDir?: string): Promise<SecretValue>;
}

/**
 * The one way secrets are read. Failures are TypeErrors (a config mistake, never retried)
 * naming the reference and what is missing, never a value.
 */
export function createSecretResolver(options: SecretResolverOptions = {}): SecretResolver {
  const env = options.env ?? process.env;
  const secretsDir = options.secretsDir ?? env['AGENT_RPC_SECRETS_DIR'] ?? '/run/secrets';
  let vault = options.vault;
  const custom = new Map((options.resolvers ?? []).map((resolver) => [resolver.scheme, resolver]));

  const vaultReader = (): VaultKvReader => {
    const addr = env['VAULT_ADDR'];
    const token = env['VAULT_TOKEN'];
    if (addr === undefined || token === undefined) throw new TypeError('vault: references need VAULT_ADDR and VAULT_TOKEN');
    vault ??= new VaultKvReader({ addr, token: new SecretValue(token), ...(env['VAULT_NAMESPACE'] ? { namespace: env['VAULT_NAMESPACE'] } : {}) });
    return vault;
  };

  return {
    async resolve(text: string, baseDir = process.cwd()): Promise<SecretValue> {
      const ref = parseSecretRef(text);
      const plugged = custom.get(ref.scheme);
      if (plugged) return plugged.resolve(ref, { baseDir });
      switch (ref.scheme) {
        case 'env': {
          const { name } = ref as { name: string };
          const value = env[name];
          if (value === undefined || value === '') throw new TypeError(`${describeSecretRef(ref)}: environment variable ${name} is not set`);
          return new SecretValue(value);
        }
        case 'secret':
          return readSecretFile(join(secretsDir, (ref as { name: string }).name), describeSecretRef(ref));
        case 'file': {
          const { path } = ref as { path: string };
          return readSecretFile(isAbsolute(path) ? path : resolve(baseDir, path), describeSecretRef(ref));
        }
        case 'vault': {
          const { mount, path, key } = ref as { mount: string; path: string; key?: string };
          return key === undefined ? vaultReader().readAll(mount, path) : vaultReader().read(mount, path, key);
        }
        default:
          throw new TypeError(`${describeSecretRef(ref)}: no resolver for scheme ${ref.scheme}`);
      }
    },
  };
}

async function readSecretFile(path: string, described: string): Promise<SecretValue> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TypeError(`${described}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  // Files written with `echo` end in a newline that is not part of the secret.
  const value = text.replace(/\r?\n+$/, '');
  if (value.length === 0) throw new TypeError(`${described}: ${path} is empty`);
  return new SecretValue(value);
}
