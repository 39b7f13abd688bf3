/**
 * Which flows are recorded at a sample ratio below 1: decided from the correlationId
 * alone, so every daemon of a fleet records (and publishes) the same flows whole.
 */
export function sampler(ratio: number): (correlationId: string) => boolean {
  if (!(ratio >= 0 && ratio <= 1)) throw new RangeError('flows: sampleRatio must be a number from 0 to 1');
  if (ratio === 1) return () => true;
  if (ratio === 0) return () => false;
  const threshold = Math.floor(ratio * 0x1_0000_0000);
  return (correlationId) => fnv1a(correlationId) < threshold;
}

/** 32-bit FNV-1a: cheap, and spreads UUIDs evenly. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
