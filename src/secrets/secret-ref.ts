/**
 * Secret references: how config files name a secret without containing it.
 *
 * - `${env:NAME}`, `env:NAME`  an environment variable
 * - `secret://name`            a file `name` in the secrets directory (default /run/secrets,
 *                              where Docker and Kubernetes mount secrets); `name` may have
 *                              folders (`platform/client-secret`), never `..`
 * - `file:path`                a file; relative paths are relative to the config file
 * - `vault:mount/path#key`     HashiCorp Vault KV v2: `key` of the secret at `path` in `mount`;
 *                              without `#key`, the whole secret as JSON
 * - `<scheme>:...`             any scheme a pluggable resolver registers
 * - `${secret:<ref>}`          any of the above written without its own wrapping (the design
 *                              documents' form: `${secret:vault:kv/acme/rpc-keys}`); a bare
 *                              name (`${secret:platform/key}`) is a `secret://` name
 */
export type SecretRef =
  | { readonly scheme: 'env'; readonly name: string }
  | { readonly scheme: 'secret'; readonly name: string }
  | { readonly scheme: 'file'; readonly path: string }
  | { readonly scheme: 'vault'; readonly mount: string; readonly path: string; readonly key?: string }
  | { readonly scheme: string; readonly rest: string };

const ENV_RE = /^(?:\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}|env:([A-Za-z_][A-Za-z0-9_]*))$/;
const WRAPPED_RE = /^\$\{secret:([^${}]+)\}$/;
// Folders are allowed (`platform/client-secret`), each part a plain name: no `.`, `..` or empty part.
const SECRET_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}(?:\/[A-Za-z0-9][A-Za-z0-9._-]{0,254})*$/;
const VAULT_RE = /^vault:([A-Za-z0-9_-][A-Za-z0-9_.-]*)\/([A-Za-z0-9_./-]+)(?:#([A-Za-z0-9_.-]+))?$/;
const SCHEME_RE = /^([a-z][a-z0-9+.-]*):(.+)$/;

export const SECRET_REF_FORMS = '${env:NAME}, secret://name, file:path, vault:mount/path#key or ${secret:<one of those>}';

/**
 * Parses a reference. Throws TypeError for anything else, without echoing the input:
 * a value that is not a reference may well be an inlined secret.
 */
export function parseSecretRef(ref: string, field = 'secret reference'): SecretRef {
  if (typeof ref !== 'string') throw new TypeError(`${field} must be a string`);
  const wrapped = WRAPPED_RE.exec(ref);
  if (wrapped) return parseInner(wrapped[1]!, field);
  if (ref.startsWith('${secret:')) throw new TypeError(`${field}: \${secret:<ref>} holds one reference, e.g. \${secret:vault:mount/path#key} or \${secret:env:NAME}`);
  const env = ENV_RE.exec(ref);
  if (env) return { scheme: 'env', name: (env[1] ?? env[2])! };
  if (ref.startsWith('secret://')) return secretName(ref.slice('secret://'.length), field);
  if (ref.startsWith('file:')) {
    const path = ref.slice('file:'.length);
    if (path.length === 0) throw new TypeError(`${field}: file: needs a path`);
    return { scheme: 'file', path };
  }
  if (ref.startsWith('vault:')) {
    const vault = VAULT_RE.exec(ref);
    if (!vault || vault[2]!.split('/').some((part) => part === '..' || part === '.' || part === '')) {
      throw new TypeError(`${field}: vault references look like vault:mount/path#key`);
    }
    return { scheme: 'vault', mount: vault[1]!, path: vault[2]!, ...(vault[3] !== undefined ? { key: vault[3] } : {}) };
  }
  const other = SCHEME_RE.exec(ref);
  if (other && !ref.includes(' ')) return { scheme: other[1]!, rest: other[2]! };
  throw new TypeError(`${field === 'secret reference' ? 'a secret field' : field} must be a secret reference (${SECRET_REF_FORMS}); inline secrets are refused`);
}

/** The inside of `${secret:...}`: a reference of another form, or a bare secrets-directory name. */
function parseInner(inner: string, field: string): SecretRef {
  if (/^[a-z][a-z0-9+.-]*:/.test(inner)) return parseSecretRef(inner, field);
  return secretName(inner, field);
}

function secretName(name: string, field: string): SecretRef {
  if (!SECRET_NAME_RE.test(name)) throw new TypeError(`${field}: secret://<name> takes a file name in the secrets directory ([A-Za-z0-9._-] parts separated by /, no . or .. parts)`);
  return { scheme: 'secret', name };
}

/** A display form of a reference that is safe to log (references hold no secret values). */
export function describeSecretRef(ref: SecretRef): string {
  switch (ref.scheme) {
    case 'env':
      return `\${env:${(ref as { name: string }).name}}`;
    case 'secret':
      return `secret://${(ref as { name: string }).name}`;
    case 'file':
      return `file:${(ref as { path: string }).path}`;
    case 'vault': {
      const vault = ref as { mount: string; path: string; key?: string };
      return `vault:${vault.mount}/${vault.path}${vault.key === undefined ? '' : `#${vault.key}`}`;
    }
    default:
      return `${ref.scheme}:…`;
  }
}
