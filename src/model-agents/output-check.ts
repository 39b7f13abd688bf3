import { Ajv2020 } from 'ajv/dist/2020.js';

/** The JSON answer a capability with an outputSchema needs: its schema for the model, and the check of what came back. */
export interface OutputCheck {
  readonly schema: Readonly<Record<string, unknown>>;
  check(text: string): { ok: true; data: unknown } | { ok: false; problem: string };
}

const ajv = new Ajv2020({ allErrors: false, strict: false });

/**
 * Parses the model's final text as JSON (a fenced ```json block is accepted: models add
 * one even when asked not to) and checks it against the schema, so the model can be told
 * what to fix before the inbox refuses the result.
 */
export function outputCheck(schema: Readonly<Record<string, unknown>>): OutputCheck {
  const validate = ajv.compile(schema);
  return {
    schema,
    check(text) {
      const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
      let data: unknown;
      try {
        data = JSON.parse(fenced ? fenced[1]! : text);
      } catch {
        return { ok: false, problem: 'it is not valid JSON' };
      }
      if (validate(data)) return { ok: true, data };
      const first = validate.errors?.[0];
      return { ok: false, problem: `it does not match the schema at ${first?.instancePath || '/'}: ${first?.message ?? 'invalid'}` };
    },
  };
}
