import type { SecretMasker } from './secret-masker.js';
import type { SecretResolver } from './resolver.js';

/** A resolver that tells the masker every value it resolves, so model agents never send or log one. */
export function maskingResolver(resolver: SecretResolver, masker: SecretMasker): SecretResolver {
  return {
    ...resolver,
    async resolve(ref, baseDir) {
      const value = await resolver.resolve(ref, baseDir);
      masker.add(value.reveal());
      return value;
    },
  };
}
