import type { IncomingMessage } from 'node:http';
import { DEFAULT_MAX_DEPTH, scanJson } from '../envelope/index.js';

/** The body was over the limit: answered 413 once the rest is drained. */
export const TOO_LARGE = Symbol('body too large');
/** The body is not a JSON document: answered 400. */
export const INVALID = Symbol('invalid body');
/** The body is not well-formed UTF-8: answered 400. */
export const NOT_UTF8 = Symbol('body not UTF-8');
/** The body nests deeper than the limit: answered 400 before it is parsed. */
export const TOO_DEEP = Symbol('body nested too deep');
/** The client went away before its body was complete: nobody to answer. */
export const ABORTED = Symbol('request aborted');

/**
 * A body over the limit is still read, and thrown away, up to this many times the limit
 * (a lingering close): most clients (Python's urllib, Java's HttpClient) send the whole
 * body before they read, and a connection closed under them reads as a broken pipe, not
 * as the 413. Past the bound the 413 goes out at once and the connection is closed.
 */
const DRAIN_FACTOR = 16;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
 * Reads a JSON body of at most `maxBytes`, nested at most `maxDepth` levels: the parsed
 * value, undefined for no body, INVALID, NOT_UTF8, TOO_DEEP (checked on the bytes before
 * anything parses them), ABORTED, or TOO_LARGE. A body over the limit resolves TOO_LARGE
 * once the client has sent all of it (read and discarded, nothing kept), so the answer
 * meets a client that reads only after sending and the connection stays usable; a body
 * declared or grown past DRAIN_FACTOR times the limit resolves TOO_LARGE at once, and the
 * connection closes after the answer.
 */
export function readJsonBody(req: IncomingMessage, maxBytes: number, maxDepth = DEFAULT_MAX_DEPTH): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const bound = DRAIN_FACTOR * maxBytes;
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (!tooLarge && size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
      }
      if (!tooLarge) chunks.push(chunk);
      else if (size > bound) resolve(TOO_LARGE);
    });
    req.on('error', (error) => (tooLarge ? undefined : reject(error)));
    // After 'end' this changes nothing (the promise is settled); before it, the body never completes.
    req.on('close', () => (req.complete ? undefined : resolve(ABORTED)));
    req.on('end', () => {
      if (tooLarge) return resolve(TOO_LARGE);
      if (size === 0) return resolve(undefined);
      resolve(parseJson(Buffer.concat(chunks), maxDepth));
    });
    const declared = Number(req.headers['content-length']);
    if (declared > maxBytes) tooLarge = true;
    if (declared > bound) resolve(TOO_LARGE);
  });
}

function parseJson(bytes: Buffer, maxDepth: number): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return NOT_UTF8;
  }
  // Depth is bounded here, where the bytes come in: nothing recursive (the parser, the
  // envelope encoder) ever meets a document deeper than the limit.
  const issue = scanJson(bytes, maxDepth);
  if (issue?.reason === 'too-deep') return TOO_DEEP;
  if (issue?.reason === 'invalid-json') return INVALID;
  try {
    return JSON.parse(text);
  } catch {
    return INVALID;
  }
}

/** The 400 message of a body refused as it was read. */
export function badBodyText(refusal: typeof INVALID | typeof NOT_UTF8 | typeof TOO_DEEP, maxDepth = DEFAULT_MAX_DEPTH): string {
  if (refusal === NOT_UTF8) return 'bad request: the body is not valid UTF-8';
  if (refusal === TOO_DEEP) return `bad request: the body nests deeper than ${maxDepth} levels`;
  return 'bad request: the body must be a JSON document';
}
