/**
 * Checks on JSON text this module writes. `JSON.stringify` (ES2019 well-formed) writes a
 * lone surrogate as an escape (`\ud800`) instead of failing; the decoder rejects such
 * escapes, so writers reject them too rather than emit bytes no peer will accept.
 */

/** True when `json` (output of JSON.stringify) contains an escaped lone surrogate. */
export function hasLoneSurrogateEscape(json: string): boolean {
  let at = json.indexOf('\\ud');
  while (at !== -1) {
    const next = json.charCodeAt(at + 3);
    // \ud800-\udfff: the fourth character is 8, 9 or a-f (JSON.stringify writes lower case).
    if ((next >= 0x38 && next <= 0x39) || (next >= 0x61 && next <= 0x66)) {
      // The backslash starts an escape only if an even number of backslashes precede it;
      // otherwise it is the second half of an escaped backslash followed by text "ud..".
      let slashes = 0;
      for (let j = at - 1; j >= 0 && json.charCodeAt(j) === 0x5c; j--) slashes++;
      if (slashes % 2 === 0) return true;
    }
    at = json.indexOf('\\ud', at + 1);
  }
  return false;
}
