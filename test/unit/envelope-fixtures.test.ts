import { createHash, createHmac } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DECODE_FAILURE_REASONS,
  canonicalJson,
  canonicalizeForSigning,
  decodeEnvelope,
  encodeEnvelope,
  envelopeSchema,
} from '../../src/envelope/index.js';
import { acceptsParsedEnvelope } from '../../src/envelope/fast-accept.js';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'envelopes');
const validNames = readdirSync(join(ROOT, 'valid')).filter((name) => name.endsWith('.json')).sort();
const malformedNames = readdirSync(join(ROOT, 'malformed')).sort();
// Keeps the too-large fixture small; every other malformed fixture is far below it.
const MALFORMED_LIMITS = { maxBytes: 2048 };

interface SignatureFile {
  key: string;
  fixtures: Record<string, { canonicalSha256: string; hmacSha256: string }>;
}
const signatures = JSON.parse(readFileSync(join(ROOT, 'signatures.json'), 'utf8')) as SignatureFile;

function decodeFixture(name: string) {
  const result = decodeEnvelope(readFileSync(join(ROOT, 'valid', name)));
  if (!result.ok) throw new Error(`${name}: ${result.reason} ${result.detail}`);
  return result.envelope;
}

describe('envelope fixtures', () => {
  it('envelope - there are recorded valid fixtures and one malformed fixture per reason', () => {
    expect(validNames.length).toBeGreaterThanOrEqual(6);
    const reasons = malformedNames.map((name) => name.replace(/\.(json|bin)$/, '')).sort();
    expect(reasons).toEqual([...DECODE_FAILURE_REASONS].sort());
  });

  // The recorded fixtures are written in schema order, as another implementation might
  // write them: re-encoding gives their RFC 8785 form, which re-encodes to itself.
  it.each(validNames)('envelope - %s re-encodes to its RFC 8785 form, a fixed point', (name) => {
    const bytes = readFileSync(join(ROOT, 'valid', name));
    const encoded = Buffer.from(encodeEnvelope(decodeFixture(name)));
    expect(encoded.toString('utf8')).toBe(canonicalJson(JSON.parse(bytes.toString('utf8'))));
    const again = decodeEnvelope(encoded);
    expect(again.ok && Buffer.compare(Buffer.from(encodeEnvelope(again.envelope)), encoded)).toBe(0);
  });

  it.each(malformedNames)('envelope - malformed/%s decodes to exactly its reason', (name) => {
    const result = decodeEnvelope(readFileSync(join(ROOT, 'malformed', name)), MALFORMED_LIMITS);
    expect(result.ok ? 'ok' : result.reason).toBe(name.replace(/\.(json|bin)$/, ''));
  });

  it('envelope - every valid fixture has a recorded signature', () => {
    expect(Object.keys(signatures.fixtures).sort()).toEqual(validNames);
  });

  it.each(validNames)('envelope - %s canonical digest and HMAC match the recorded ones', (name) => {
    const canonical = canonicalizeForSigning(decodeFixture(name));
    const recorded = signatures.fixtures[name]!;
    expect(createHash('sha256').update(canonical).digest('hex')).toBe(recorded.canonicalSha256);
    expect(createHmac('sha256', signatures.key).update(canonical).digest('hex')).toBe(recorded.hmacSha256);
  });

  it('envelope - the hot-path check agrees with the schema on every fixture', () => {
    for (const name of validNames) {
      const value: unknown = JSON.parse(readFileSync(join(ROOT, 'valid', name), 'utf8'));
      expect(acceptsParsedEnvelope(value), name).toBe(true);
      expect(envelopeSchema.safeParse(value).success, name).toBe(true);
    }
  });
});
