export { SecretValue } from './secret-value.js';
export { parseSecretRef, describeSecretRef, SECRET_REF_FORMS, type SecretRef } from './secret-ref.js';
export { createSecretResolver, type SecretResolver, type SecretResolverOptions, type SecretSchemeResolver } from './resolver.js';
export { VaultKvReader, type VaultKvOptions } from './vault-kv.js';
export { parseKeyRing } from './key-ring.js';
export { maskingResolver } from './masking-resolver.js';
export { isSecretName, SecretMasker } from './secret-masker.js';
export { secretRefSchema } from './secret-ref-field.js';
