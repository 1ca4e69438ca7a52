/**
 * Paint channels (seed 004, "TerrainWeights" and "Verify names the offending sample and layer").
 *
 * Storage: `weight_sampleLayer`, one byte per paint layer per sample, sample-major (sample k's L bytes are adjacent,
 * so painting one sample touches one cache line).
 * Rules:
 *  [D] the bytes of a sample sum to exactly 255;
 *  [D] painting one layer to a target redistributes the remaining 255 − target over the other layers in proportion
 *      to what they held, by largest remainder, so the total is exact. [R] The arithmetic is integer: layer k's quota
 *      is (255 − target)·w_k / W (W = the others' sum); each takes the floor, and the units left over go one each to
 *      the largest remainders (ties: the larger old weight, then the lower index). When the others held nothing,
 *      they share equally by the same rule;
 *  [D] `verify` names the first offending sample (row-major) and the layer holding most of it;
 *  [R] a brush paints every sample within `radius` of a centre towards the target with strength (1 − r²/R²)², the
 *      new weight of the painted layer being round(old + (target − old)·strength).
 */
import { InputRangeError } from '../errors.js';
export class TerrainWeights {
  readonly weight_sampleLayer: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
    readonly layerNames: readonly string[],
    data?: Uint8Array,
  ) {
    if (layerNames.length < 1 || layerNames.length > 255) throw new InputRangeError(`paint layers: expected 1…255 names, got ${layerNames.length}`);
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1)
      throw new InputRangeError(`paint channels: expected a positive integer size, got ${width}×${height}`);
    const n = width * height * layerNames.length;
    if (data) {
      if (data.length !== n) throw new InputRangeError(`paint channels: ${data.length} bytes, expected ${width}×${height}×${layerNames.length} = ${n}`);
      this.weight_sampleLayer = data;
    } else {
      // Every sample starts fully in layer 0.
      this.weight_sampleLayer = new Uint8Array(n);
      for (let k = 0; k < width * height; k++) this.weight_sampleLayer[k * layerNames.length] = 255;
    }
  }

  get layers(): number {
    return this.layerNames.length;
  }

  weightAt(i: number, j: number, layer: number): number {
    return this.weight_sampleLayer[(j * this.width + i) * this.layers + layer];
  }

  /**
   * Sets `layer` at sample (i, j) to `target` (0…255) and redistributes the rest over the other layers by largest
   * remainder, proportionally to what they held.
   */
  paintSample(i: number, j: number, layer: number, target: number): void {
    const L = this.layers;
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= this.width || j >= this.height) {
      throw new InputRangeError(`paint: sample (${i}, ${j}) outside the ${this.width}×${this.height} grid`);
    }
    if (!Number.isInteger(layer) || layer < 0 || layer >= L) throw new InputRangeError(`paint: layer ${layer} out of range (0…${L - 1})`);
    checkTarget(L, target);
    redistribute(this.weight_sampleLayer, (j * this.width + i) * L, L, layer, target);
  }

  /** A round brush (see header). Returns the number of samples painted. */
  paintBrush(ci: number, cj: number, radius: number, layer: number, target: number): number {
    const L = this.layers;
    if (!(radius > 0) || !Number.isFinite(radius)) throw new InputRangeError(`paint: radius expected > 0 samples, got ${radius}`);
    if (!Number.isFinite(ci) || !Number.isFinite(cj)) throw new InputRangeError(`paint: centre (${ci}, ${cj}), expected finite sample coordinates`);
    if (!Number.isInteger(layer) || layer < 0 || layer >= L) throw new InputRangeError(`paint: layer ${layer} out of range (0…${L - 1})`);
    checkTarget(L, target);
    const r = Math.ceil(radius);
    let painted = 0;
    for (let j = Math.max(0, Math.floor(cj) - r); j <= Math.min(this.height - 1, Math.ceil(cj) + r); j++) {
      for (let i = Math.max(0, Math.floor(ci) - r); i <= Math.min(this.width - 1, Math.ceil(ci) + r); i++) {
        const q = ((i - ci) ** 2 + (j - cj) ** 2) / (radius * radius);
        if (q >= 1) continue;
        const s = (1 - q) * (1 - q);
        const o = (j * this.width + i) * L;
        const old = this.weight_sampleLayer[o + layer];
        redistribute(this.weight_sampleLayer, o, L, layer, Math.round(old + (target - old) * s));
        painted++;
      }
    }
    return painted;
  }

  /**
   * The first sample (row-major) whose bytes do not sum to 255, with the layer holding most of it (lowest index on a
   * tie); null when every sample sums to 255. Accumulator: an integer sum per sample.
   */
  check(): { i: number; j: number; sum: number; layer: number; name: string; weight: number } | null {
    const L = this.layers;
    const w = this.weight_sampleLayer;
    for (let k = 0; k < this.width * this.height; k++) {
      let sum = 0;
      for (let l = 0; l < L; l++) sum += w[k * L + l];
      if (sum === 255) continue;
      let top = 0;
      for (let l = 1; l < L; l++) if (w[k * L + l] > w[k * L + top]) top = l;
      return { i: k % this.width, j: Math.floor(k / this.width), sum, layer: top, name: this.layerNames[top], weight: w[k * L + top] };
    }
    return null;
  }

  /** Throws naming the offending sample and the layer holding most of it. */
  verify(): void {
    const bad = this.check();
    if (bad) {
      throw new InputRangeError(
        `paint weights at sample (${bad.i}, ${bad.j}) sum to ${bad.sum}, expected 255; layer ${bad.layer} (${JSON.stringify(bad.name)}) holds the most of it (${bad.weight})`,
      );
    }
  }
}

function checkTarget(layers: number, target: number): void {
  if (!Number.isInteger(target) || target < 0 || target > 255) throw new InputRangeError(`paint: weight expected an integer 0…255, got ${target}`);
  if (layers === 1 && target !== 255)
    throw new InputRangeError(`paint: a terrain with one paint layer holds 255 at every sample; a weight of ${target} cannot act (add paint layers)`);
}

/**
 * Sets w[o + layer] = target and shares 255 − target over the other L − 1 bytes at o by largest remainder,
 * proportionally to their old values (equally when they were all zero). Integer arithmetic throughout.
 */
export function redistribute(w: Uint8Array, o: number, L: number, layer: number, target: number): void {
  if (L === 1) {
    w[o] = 255; // a single channel holds everything whatever the target
    return;
  }
  const rest = 255 - target;
  let others = 0;
  for (let l = 0; l < L; l++) if (l !== layer) others += w[o + l];
  const equal = others === 0;
  const denom = equal ? L - 1 : others;
  // Floors first; remember the remainders (numerators mod denom) to hand out the leftover units.
  let given = 0;
  const rem: number[] = [];
  for (let l = 0; l < L; l++) {
    if (l === layer) continue;
    const num = rest * (equal ? 1 : w[o + l]);
    rem.push(l, num % denom, w[o + l]);
    const f = Math.floor(num / denom);
    given += f;
    w[o + l] = f; // overwritten old values are kept in rem for tie-breaking
  }
  let left = rest - given;
  while (left > 0) {
    let best = -1;
    for (let k = 0; k < rem.length; k += 3) {
      if (rem[k + 1] < 0) continue;
      if (best < 0 || rem[k + 1] > rem[best + 1] || (rem[k + 1] === rem[best + 1] && rem[k + 2] > rem[best + 2])) best = k;
    }
    w[o + rem[best]]++;
    rem[best + 1] = -1; // each layer gets at most one leftover unit
    left--;
  }
  w[o + layer] = target;
}
