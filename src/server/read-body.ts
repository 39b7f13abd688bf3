import type { IncomingMessage } from 'node:http';

/** The body was over the limit: answered 413 while the rest is drained. */
export const TOO_LARGE = Symbol('body too large');
/** The body is not a JSON document: answered 400. */
export const INVALID = Symbol('invalid body');
/** The client went away before its body was complete: nobody to answer. */
export const ABORTED = Symbol('request aborted');

/**
 * After answering 413, the rest of a body is read and discarded up to this many times the
 * limit: the client, still sending, then reads its 413 and keeps a usable connection.
 * Past it the connection is closed; the 413 is on the wire long before.
 */
const DRAIN_FACTOR = 16;

/** True when the request carries a body (a length above zero, or a chunked one). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** `application/json` or a `+json` type, parameters (charset) allowed, case-insensitive. */
export function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]!.trim().toLowerCase();
  return type !== undefined && (type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type));
}

/**
 * Reads a JSON body of at most `maxBytes`: the parsed value, undefined for no body,
 * INVALID, ABORTED, or TOO_LARGE as soon as the limit is passed (a declared length over the limit
 * is refused before anything is read). On TOO_LARGE the request is not destroyed: what
 * is left of it keeps being read and thrown away, so the client gets the answer sent
 * meanwhile instead of a reset connection (up to DRAIN_FACTOR times the limit).
 */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    const refuse = (): void => {
      tooLarge = true;
      chunks.length = 0;
      resolve(TOO_LARGE);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (tooLarge) {
        if (size > DRAIN_FACTOR * maxBytes) req.socket.destroy();
      } else if (size > maxBytes) refuse();
      else chunks.push(chunk);
    });
    req.on('error', (error) => (tooLarge ? undefined : reject(error)));
    // After 'end' this changes nothing (the promise is settled); before it, the body never completes.
    req.on('close', () => (req.complete ? undefined : resolve(ABORTED)));
    req.on('end', () => {
      if (tooLarge) return;
      if (size === 0) return resolve(undefined);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(INVALID);
      }
    });
    if (Number(req.headers['content-length']) > maxBytes) refuse();
  });
}
