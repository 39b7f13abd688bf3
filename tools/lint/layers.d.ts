export interface Layer {
  readonly layer: string;
  readonly why: string;
  /** Rows, lowest first; the units of one row are siblings. */
  readonly units: readonly (readonly string[])[];
}
export const LAYERS: readonly Layer[];
export const ENTRIES: Readonly<Record<string, readonly string[]>>;
export const NO_INDEX: readonly string[];
export const ANY_MODULE: readonly string[];
export const CHECKED: readonly string[];
export function unitOf(path: string): string | undefined;
export function rankOf(unit: string): number | undefined;
export function layerOf(unit: string): string | undefined;
export function entriesOf(unit: string): string[] | undefined;
