/**
 * In-memory heightfields: a grid description plus either 16-bit codes (with their authored range) or float32 metres.
 * Conversions between the two go through the encoding rules of ./encoding.ts and nothing else.
 */
import { DEFAULT_RANGE, validateGrid, validateRange, type GridDescription, type HeightRange } from './grid.js';
import { decodeFieldR16, encodeFieldR16, type EncodeCounts } from './encoding.js';

export interface CodeHeightfield {
  readonly kind: 'codes';
  readonly grid: GridDescription;
  readonly range: HeightRange;
  readonly code_px: Uint16Array;
}

export interface FloatHeightfield {
  readonly kind: 'float';
  readonly grid: GridDescription;
  readonly height_px: Float32Array;
}

export type Heightfield = CodeHeightfield | FloatHeightfield;

function checkLength(grid: GridDescription, length: number, what: string): void {
  if (length !== grid.columns * grid.rows) {
    throw new RangeError(`${what}: ${length} samples do not fit the grid's ${grid.columns}×${grid.rows} = ${grid.columns * grid.rows}`);
  }
}

export function codeHeightfield(grid: GridDescription, code_px: Uint16Array, range: HeightRange = DEFAULT_RANGE): CodeHeightfield {
  validateGrid(grid);
  validateRange(range);
  checkLength(grid, code_px.length, 'code field');
  return { kind: 'codes', grid, range, code_px };
}

export function floatHeightfield(grid: GridDescription, height_px: Float32Array): FloatHeightfield {
  validateGrid(grid);
  checkLength(grid, height_px.length, 'float field');
  return { kind: 'float', grid, height_px };
}

/** Heights in metres of any heightfield (decoding codes; floats are returned as they are, not copied). */
export function heightsOf(f: Heightfield): Float32Array {
  if (f.kind === 'float') return f.height_px;
  return decodeFieldR16(f.code_px, new Float32Array(f.code_px.length), f.range);
}

/** Encodes a float field to codes under `range`, with the counts of clamped and NaN pixels. */
export function encodeHeightfield(f: FloatHeightfield, range: HeightRange = DEFAULT_RANGE): { field: CodeHeightfield; counts: EncodeCounts } {
  const code_px = new Uint16Array(f.height_px.length);
  const counts = encodeFieldR16(f.height_px, code_px, range);
  return { field: codeHeightfield(f.grid, code_px, range), counts };
}

/**
 * The same heightfield stored in the other row order (`rowDirection`): rows reversed, every sample exact. Returns `f`
 * itself when it is stored that way already. Lets two files that state opposite row directions for the same extent be
 * compared pixel by pixel without resampling.
 */
export function withRowDirection(f: Heightfield, rowDirection: GridDescription['rowDirection']): Heightfield {
  if (f.grid.rowDirection === rowDirection) return f;
  const grid: GridDescription = { ...f.grid, rowDirection };
  const { columns, rows } = f.grid;
  const src = f.kind === 'codes' ? f.code_px : f.height_px;
  const out = f.kind === 'codes' ? new Uint16Array(src.length) : new Float32Array(src.length);
  for (let j = 0; j < rows; j++) out.set(src.subarray(j * columns, (j + 1) * columns), (rows - 1 - j) * columns);
  return f.kind === 'codes' ? codeHeightfield(grid, out as Uint16Array, f.range) : floatHeightfield(grid, out as Float32Array);
}
