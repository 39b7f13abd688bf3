import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { RpcError } from '../errors.js';

/** What a capability publishes about itself (capabilities.yaml, `$capabilities`). */
export interface CapabilitySchema {
  readonly name: string;
  readonly inputSchema?: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
}

export type SchemaDirection = 'input' | 'output';

interface Compiled {
  readonly input?: ValidateFunction;
  readonly output?: ValidateFunction;
}

/**
 * Compiled JSON Schemas (draft 2020-12) of a set of capabilities. A violation is an
 * EAGENTRPC_SCHEMA_VIOLATION naming the capability, the direction and the JSON pointer
 * of the first problem (`/files/0`).
 */
export class CapabilitySchemas {
  private readonly compiled = new Map<string, Compiled>();
  // One compiler per set: schemas of different agents never share ids.
  private readonly ajv = new Ajv2020({ allErrors: false, strict: false });

  constructor(capabilities: readonly CapabilitySchema[] = [], owner = 'capabilities') {
    for (const capability of capabilities) {
      const compile = (schema: Record<string, unknown> | undefined, field: string): ValidateFunction | undefined => {
        if (schema === undefined) return undefined;
        try {
          return this.ajv.compile(schema);
        } catch (error) {
          throw new TypeError(`${owner}: ${capability.name}.${field} is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      };
      this.compiled.set(capability.name, { input: compile(capability.inputSchema, 'inputSchema'), output: compile(capability.outputSchema, 'outputSchema') });
    }
  }

  has(capability: string): boolean {
    return this.compiled.has(capability);
  }

  /** Some capability publishes an input schema: the receive path checks inputs. */
  get hasInputSchemas(): boolean {
    for (const entry of this.compiled.values()) if (entry.input) return true;
    return false;
  }

  hasOutput(capability: string): boolean {
    return this.compiled.get(capability)?.output !== undefined;
  }

  /** Undefined when the value conforms (or no schema is known), else the violation. */
  check(capability: string, direction: SchemaDirection, value: unknown): RpcError | undefined {
    const validate = this.compiled.get(capability)?.[direction];
    if (validate === undefined || validate(value)) return undefined;
    const first = validate.errors?.[0];
    const pointer = first?.instancePath === undefined || first.instancePath === '' ? '/' : first.instancePath;
    const problem = first?.message ?? 'does not match the schema';
    return new RpcError('EAGENTRPC_SCHEMA_VIOLATION', `${capability} ${direction} at ${pointer}: ${problem}`, {
      details: { capability, direction, pointer, problem, keyword: first?.keyword },
    });
  }
}
