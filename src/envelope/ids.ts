/**
 * Message and correlation ids: UUID version 7 (RFC 9562 §5.7).
 *
 * Time-ordered ids keep broker keys, dedupe stores and log searches roughly in arrival
 * order, and their 48-bit millisecond prefix tells an operator when a flow started.
 * Layout: unix_ts_ms (48) | ver=0111 (4) | rand_a (12) | var=10 (2) | rand_b (62).
 *
 * Within one process ids are strictly increasing: rand_a is a counter (RFC 9562 §6.2,
 * method 1) that starts at a random value below 2048 each new millisecond and is bumped
 * for every further id in that millisecond; if it runs out, or the clock steps back, the
 * timestamp field is advanced past the last one used rather than going backwards.
 */
import { randomFillSync } from 'node:crypto';

// Two lower-case hex digits per byte value, as character codes: ids are written as bytes
// into a buffer and read out as one string (concatenating a piece per byte would allocate
// a string at every step).
const HEX_CODES = Buffer.from(Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0')).join(''), 'latin1');

function putHex(text: Buffer, at: number, byte: number): void {
  text[at] = HEX_CODES[2 * byte]!;
  text[at + 1] = HEX_CODES[2 * byte + 1]!;
}

// One randomFillSync call serves many ids: the syscall, not the formatting, dominates
// the cost of a fresh call per id. Each id takes 8 bytes (2 for the counter seed are
// drawn only when the millisecond changes, from the same pool).
const POOL_SIZE = 8192;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;

function takeRandom(count: number): number {
  if (poolOffset + count > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += count;
  return at;
}

let hexText = Buffer.alloc(64);

/** `bytes` random bytes as lowercase hex, from the shared pool (trace and span ids). */
export function randomHex(bytes: number): string {
  const at = takeRandom(bytes);
  if (hexText.length < 2 * bytes) hexText = Buffer.alloc(2 * bytes);
  for (let i = 0; i < bytes; i++) putHex(hexText, 2 * i, pool[at + i]!);
  return hexText.toString('latin1', 0, 2 * bytes);
}

let lastMs = -1;
let counter = 0;

export function newMessageId(): string {
  let ms = Date.now();
  if (ms > lastMs) {
    const at = takeRandom(2);
    counter = ((pool[at]! << 8) | pool[at + 1]!) & 0x7ff;
    lastMs = ms;
  } else {
    // Same millisecond, or the clock stepped back: stay on the last timestamp.
    ms = lastMs;
    counter++;
    if (counter > 0xfff) {
      ms = ++lastMs;
      counter = 0;
    }
  }
  const r = takeRandom(8);
  // 48-bit timestamp split so that no step needs more than 32-bit integer arithmetic.
  const high = Math.floor(ms / 0x1000000); // upper 24 bits
  const low = ms % 0x1000000; // lower 24 bits
  putHex(idText, 0, (high >>> 16) & 0xff);
  putHex(idText, 2, (high >>> 8) & 0xff);
  putHex(idText, 4, high & 0xff);
  putHex(idText, 6, (low >>> 16) & 0xff);
  putHex(idText, 9, (low >>> 8) & 0xff);
  putHex(idText, 11, low & 0xff);
  putHex(idText, 14, 0x70 | (counter >>> 8));
  putHex(idText, 16, counter & 0xff);
  putHex(idText, 19, 0x80 | (pool[r]! & 0x3f));
  putHex(idText, 21, pool[r + 1]!);
  for (let k = 2; k < 8; k++) putHex(idText, 20 + 2 * k, pool[r + k]!);
  return idText.toString('latin1', 0, 36);
}

// The id's text as bytes, dashes in place; putHex fills the hex digits.
const idText = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/** A flow starts with a fresh id of the same shape as a message id. */
export const newCorrelationId: () => string = newMessageId;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for the 8-4-4-4-12 hex text form of any UUID (any version, either case). */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** The millisecond timestamp carried by a UUID v7, or undefined for anything else. */
export function uuidV7Timestamp(value: string): number | undefined {
  if (!UUID_RE.test(value) || value.charCodeAt(14) !== 0x37) return undefined;
  const variant = value.charCodeAt(19) | 0x20; // lower-case a-f
  if (variant !== 0x38 && variant !== 0x39 && variant !== 0x61 && variant !== 0x62) return undefined;
  return Number.parseInt(value.slice(0, 8) + value.slice(9, 13), 16);
}
