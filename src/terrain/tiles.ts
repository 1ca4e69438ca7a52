/**
 * One grid, tile windows sharing boundary samples (seed 004): a boundary sample has one home — the grid — and every
 * tile that touches it reads the same value. Tile (tx, ty) of S samples covers grid samples [tx·(S − 1), tx·(S − 1) + S).
 */
import type { LayerStack } from './layers.js';
import { InputRangeError, UsageError } from '../errors.js';

export interface TileWindow {
  tx: number;
  ty: number;
  /** First grid column and row of the tile. */
  i0: number;
  j0: number;
  size: number;
}

export function tileWindow(tx: number, ty: number, tileSamples: number): TileWindow {
  const q = tileSamples - 1;
  return { tx, ty, i0: tx * q, j0: ty * q, size: tileSamples };
}

/** Copies a tile's samples out of the grid (row-major, size²). */
export function readTile<T extends Float32Array | Float64Array | Uint16Array>(grid: T, gridColumns: number, w: TileWindow, out: T): T {
  for (let j = 0; j < w.size; j++) {
    const src = (w.j0 + j) * gridColumns + w.i0;
    out.set(grid.subarray(src, src + w.size) as never, j * w.size);
  }
  return out;
}

/**
 * Max-reduced LOD mip of a 2ⁿ + 1 tile (seed 004: "Reduced by the maximum, not the average"): n → (n − 1)/2 + 1,
 * destination (i, j) ↔ source (2i, 2j). Interior samples take the maximum of the 3×3 source neighbourhood; boundary
 * samples take the maximum along the boundary only, so two tiles reducing their own copy of a shared row agree.
 */
export function maxReduce(src: Float32Array, n: number): { data: Float32Array; size: number } {
  if ((n - 1) % 2 !== 0 || n < 3) throw new InputRangeError(`maxReduce: expected 2ⁿ + 1 samples (≥ 3), got ${n}`);
  const m = (n - 1) / 2 + 1;
  const out = new Float32Array(m * m);
  const at = (i: number, j: number) => src[Math.min(n - 1, Math.max(0, j)) * n + Math.min(n - 1, Math.max(0, i))];
  for (let j = 0; j < m; j++) {
    for (let i = 0; i < m; i++) {
      const si = 2 * i;
      const sj = 2 * j;
      const edgeX = i === 0 || i === m - 1;
      const edgeY = j === 0 || j === m - 1;
      let v = -Infinity;
      if (edgeX && edgeY) v = at(si, sj);
      else if (edgeY) for (let d = -1; d <= 1; d++) v = Math.max(v, at(si + d, sj));
      else if (edgeX) for (let d = -1; d <= 1; d++) v = Math.max(v, at(si, sj + d));
      else for (let b = -1; b <= 1; b++) for (let a = -1; a <= 1; a++) v = Math.max(v, at(si + a, sj + b));
      out[j * m + i] = v;
    }
  }
  return { data: out, size: m };
}

/**
 * Mip level 0 of tile (tx, ty) of S samples (seed 004: "Level 0 is read from the composite cache, so the caller has
 * to have resolved it"): a copy of the cached composite, refused while any cache tile under the window is stale —
 * reading it then would hand out the ground as it was before the last edit. Call `stack.resolve()` first.
 */
export function tileMip0(stack: LayerStack, tx: number, ty: number, tileSamples: number, out = new Float32Array(tileSamples * tileSamples)): Float32Array {
  const w = tileWindow(tx, ty, tileSamples);
  const rect = { i0: w.i0, j0: w.j0, i1: w.i0 + tileSamples - 1, j1: w.j0 + tileSamples - 1 };
  if (!Number.isInteger(tx) || !Number.isInteger(ty) || tx < 0 || ty < 0 || rect.i1 >= stack.width || rect.j1 >= stack.height)
    throw new InputRangeError(`mip 0: tile (${tx}, ${ty}) of ${tileSamples} samples is outside the ${stack.width}×${stack.height} grid`);
  if (out.length !== tileSamples * tileSamples)
    throw new InputRangeError(`mip 0: output of ${out.length} floats, expected ${tileSamples}² = ${tileSamples * tileSamples}`);
  if (!stack.isResolved(rect))
    throw new UsageError(
      `mip 0 of tile (${tx}, ${ty}): the composite cache under samples ${rect.i0}…${rect.i1} × ${rect.j0}…${rect.j1} is stale; call resolve() first`,
    );
  return readTile(stack.cached(), stack.width, w, out);
}

/** The max-reduced mip chain of a 2ⁿ + 1 tile, level 0 from the resolved cache (tileMip0) down to 3 samples. */
export function tileMips(stack: LayerStack, tx: number, ty: number, tileSamples: number): { data: Float32Array; size: number }[] {
  const chain = [{ data: tileMip0(stack, tx, ty, tileSamples), size: tileSamples }];
  while (chain[chain.length - 1].size > 3) {
    const top = chain[chain.length - 1];
    chain.push(maxReduce(top.data, top.size));
  }
  return chain;
}
