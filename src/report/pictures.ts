/**
 * Pictures for reports: colour maps, display downsampling, RGB PNG encoding.
 * Display downsampling is for display only; every statistic is computed at full resolution.
 */
import { pngFile } from '../io/png16.js';

export type Rgb = [number, number, number];

/** A colour scale as stops (t ∈ [0, 1] ↦ RGB), interpolated linearly in RGB between stops. */
export type ColourStops = readonly (readonly [number, Rgb])[];

/**
 * [R] Diverging scale for signed differences, blue (negative) – near-white (zero) – red (positive), after ColorBrewer's
 * RdBu. The PNG pictures and the HTML figures (through `plotlyColorscale`) use these same stops, so a colour means the
 * same value in both.
 */
export const DIVERGING_STOPS: ColourStops = [
  [0, [33, 102, 172]],
  [0.25, [103, 169, 207]],
  [0.5, [247, 247, 247]],
  [0.75, [239, 138, 98]],
  [1, [178, 24, 43]],
];

/** Sequential scale for magnitudes (|Δ| ≥ 0): near-white at zero to dark red at the maximum. */
export const MAGNITUDE_STOPS: ColourStops = [
  [0, [247, 247, 247]],
  [0.5, [239, 138, 98]],
  [1, [178, 24, 43]],
];

/** A terrain-like sequential scale for heights: deep green → tan → brown → white. */
export const TERRAIN_STOPS: ColourStops = [
  [0, [38, 87, 61]],
  [0.35, [120, 160, 90]],
  [0.6, [196, 176, 120]],
  [0.85, [140, 105, 80]],
  [1, [250, 250, 250]],
];

/** The colour of t ∈ [0, 1] (clamped) on a stop scale. */
export function colourAt(stops: ColourStops, t: number): Rgb {
  const c = Math.max(0, Math.min(1, t));
  for (let s = 1; s < stops.length; s++) {
    const [t1, c1] = stops[s];
    const [t0, c0] = stops[s - 1];
    if (c <= t1) {
      const f = (c - t0) / (t1 - t0);
      return [0, 1, 2].map((k) => Math.round(c0[k] + (c1[k] - c0[k]) * f)) as Rgb;
    }
  }
  return [...stops[stops.length - 1][1]] as Rgb;
}

/** The same stops as a Plotly colorscale (`[[t, 'rgb(r,g,b)'], …]`). */
export function plotlyColorscale(stops: ColourStops): [number, string][] {
  return stops.map(([t, [r, g, b]]) => [t, `rgb(${r},${g},${b})`]);
}

/** Diverging scale for t ∈ [−1, 1] (symmetric about zero): −1 blue, 0 near-white, +1 red. */
export function diverging(t: number): Rgb {
  return colourAt(DIVERGING_STOPS, (Math.max(-1, Math.min(1, t)) + 1) / 2);
}

/** Magnitude scale for t ∈ [0, 1]. */
export function magnitude(t: number): Rgb {
  return colourAt(MAGNITUDE_STOPS, t);
}

/** Terrain scale for t ∈ [0, 1]. */
export function terrain(t: number): Rgb {
  return colourAt(TERRAIN_STOPS, t);
}

/** Box-mean downsampling by an integer factor (display only). NaN samples are skipped. */
export function downsampleMean(v: ArrayLike<number>, w: number, h: number, f: number): { data: Float32Array; w: number; h: number } {
  const ow = Math.ceil(w / f);
  const oh = Math.ceil(h / f);
  const data = new Float32Array(ow * oh);
  const cnt = new Float32Array(ow * oh);
  for (let j = 0; j < h; j++) {
    const o = ((j / f) | 0) * ow;
    for (let i = 0; i < w; i++) {
      const x = v[j * w + i];
      if (x !== x) continue;
      data[o + ((i / f) | 0)] += x;
      cnt[o + ((i / f) | 0)]++;
    }
  }
  for (let k = 0; k < data.length; k++) data[k] = cnt[k] > 0 ? data[k] / cnt[k] : Number.NaN;
  return { data, w: ow, h: oh };
}

/** Max-magnitude pooling (keeps the signed value of largest magnitude): a difference never disappears from view. */
export function downsampleMaxAbs(v: ArrayLike<number>, w: number, h: number, f: number): { data: Float32Array; w: number; h: number } {
  const ow = Math.ceil(w / f);
  const oh = Math.ceil(h / f);
  const data = new Float32Array(ow * oh);
  for (let j = 0; j < h; j++) {
    const o = ((j / f) | 0) * ow;
    for (let i = 0; i < w; i++) {
      const x = v[j * w + i];
      const k = o + ((i / f) | 0);
      if (Math.abs(x) > Math.abs(data[k])) data[k] = x;
    }
  }
  return { data, w: ow, h: oh };
}

/**
 * RGB PNG of a scalar field. Row 0 of the field is drawn at the bottom when `row0AtBottom` (world +Y up, as maps are
 * read), so a row0-at-ymin field appears north-up.
 */
export function scalarPng(v: ArrayLike<number>, w: number, h: number, colour: (x: number) => Rgb, row0AtBottom: boolean): Uint8Array {
  // Filtered scanlines of an 8-bit RGB PNG: per row a filter byte 0 (None), then the row's RGB triples.
  const stride = 1 + w * 3;
  const rgb = new Uint8Array(stride * h);
  for (let j = 0; j < h; j++) {
    const dst = row0AtBottom ? h - 1 - j : j;
    for (let i = 0; i < w; i++) {
      const x = v[j * w + i];
      const [r, g, b] = x !== x ? [200, 200, 200] : colour(x);
      const o = dst * stride + 1 + i * 3;
      rgb[o] = r;
      rgb[o + 1] = g;
      rgb[o + 2] = b;
    }
  }
  return pngFile(w, h, 8, 2, 0, rgb);
}

/** Two equally sized RGB images side by side with a gap. */
export function sideBySidePng(a: ArrayLike<number>, b: ArrayLike<number>, w: number, h: number, colour: (x: number) => Rgb, row0AtBottom: boolean): Uint8Array {
  const gap = Math.max(2, Math.round(w / 64));
  const W = 2 * w + gap;
  const both = new Float32Array(W * h).fill(Number.NaN);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      both[j * W + i] = a[j * w + i];
      both[j * W + w + gap + i] = b[j * w + i];
    }
  }
  return scalarPng(both, W, h, colour, row0AtBottom);
}

/**
 * [R] The difference scale of every report map: signed, white at zero, ±1, ±2 and ±3 codes in three distinct
 * colours each (warm above the reference, cool below), and |Δq| ≥ 4 on a logarithmic ramp from 4 to 65535 (fixed, not
 * set by the data's maximum, so one colour means one |Δq| in every report and a lone ±1 stays visible beside ±86).
 */
export const DQ_ZERO: Rgb = [255, 255, 255];
/** Colours of Δq = +1, +2, +3. */
export const DQ_POSITIVE_BANDS: readonly Rgb[] = [
  [253, 174, 45],
  [240, 101, 20],
  [214, 32, 32],
];
/** Colours of Δq = −1, −2, −3. */
export const DQ_NEGATIVE_BANDS: readonly Rgb[] = [
  [72, 178, 232],
  [33, 102, 205],
  [40, 40, 160],
];
/** Log ramps beyond ±3: at |Δq| = 4 the first stop, at 65535 the last (each darker than the one before). */
export const DQ_POSITIVE_RAMP: ColourStops = [
  [0, [170, 0, 60]],
  [0.5, [110, 0, 80]],
  [1, [40, 0, 30]],
];
export const DQ_NEGATIVE_RAMP: ColourStops = [
  [0, [60, 20, 120]],
  [0.5, [40, 10, 90]],
  [1, [15, 5, 45]],
];
export const DQ_RAMP_FROM = 4;
export const DQ_RAMP_TO = 65535;

/** Position of |Δq| ≥ 4 along the log ramp, t ∈ [0, 1]. */
export function dqRampT(absDq: number): number {
  return Math.max(0, Math.min(1, Math.log(absDq / DQ_RAMP_FROM) / Math.log(DQ_RAMP_TO / DQ_RAMP_FROM)));
}

/** The colour of a signed code difference (rounded to an integer; NaN → grey, as in scalarPng). */
export function dqColour(dq: number): Rgb {
  if (dq !== dq) return [200, 200, 200];
  const d = Math.round(dq);
  if (d === 0) return [...DQ_ZERO] as Rgb;
  const a = Math.abs(d);
  if (a <= 3) return [...(d > 0 ? DQ_POSITIVE_BANDS : DQ_NEGATIVE_BANDS)[a - 1]] as Rgb;
  return colourAt(d > 0 ? DQ_POSITIVE_RAMP : DQ_NEGATIVE_RAMP, dqRampT(a));
}

/**
 * [R] The same rules for float differences in mm (stage maps): |Δ| ≤ 0.01 mm (the attribution's ε: equal within
 * rounding) white; 0.01 mm … 1 code (1000/65535 m ≈ 15.26 mm) in three bands of the ±1…±3 colours (below 0.1 mm, below
 * 1 mm, below one code); beyond one code the code scale's log ramp (|Δ| in codes). Never set by the maximum.
 */
export const MM_EQUAL = 0.01;
export const MM_BAND_EDGES: readonly number[] = [0.1, 1];
export function mmColour(mm: number, mmPerCode = 1e6 / 65535): Rgb {
  if (mm !== mm) return [200, 200, 200];
  const a = Math.abs(mm);
  if (a <= MM_EQUAL) return [...DQ_ZERO] as Rgb;
  const bands = mm > 0 ? DQ_POSITIVE_BANDS : DQ_NEGATIVE_BANDS;
  if (a <= MM_BAND_EDGES[0]) return [...bands[0]] as Rgb;
  if (a <= MM_BAND_EDGES[1]) return [...bands[1]] as Rgb;
  if (a <= mmPerCode) return [...bands[2]] as Rgb;
  return colourAt(mm > 0 ? DQ_POSITIVE_RAMP : DQ_NEGATIVE_RAMP, dqRampT(Math.max(DQ_RAMP_FROM, a / mmPerCode)));
}

/**
 * signedBlockMax of the field fround((gen − ref) × scale) without making it: the same values (each difference
 * rounded to float32, as a Float32Array of it would hold) compared in the same order, so the same blocks.
 */
export function signedBlockMaxOfDifference(
  gen: Float32Array,
  ref: Float32Array,
  w: number,
  h: number,
  size: number,
  scale: number,
): { data: Float32Array; w: number; h: number } {
  const bw = Math.ceil(w / size);
  const bh = Math.ceil(h / size);
  const data = new Float32Array(bw * bh).fill(Number.NaN);
  for (let j = 0; j < h; j++) {
    const o = ((j / size) | 0) * bw;
    const row = j * w;
    // Block by block along the row (no division a pixel); the block's value so far is read and written once.
    for (let b = 0; b < bw; b++) {
      let c = data[o + b];
      const end = Math.min(w, (b + 1) * size);
      for (let i = b * size; i < end; i++) {
        const x = Math.fround((gen[row + i] - ref[row + i]) * scale);
        if (x !== x) continue;
        if (c !== c || Math.abs(x) > Math.abs(c)) c = x;
      }
      data[o + b] = c;
    }
  }
  return { data, w: bw, h: bh };
}

/** Signed block maximum of a float field (the value of largest magnitude per size×size block; NaN where a block has none). */
export function signedBlockMax(v: ArrayLike<number>, w: number, h: number, size: number): { data: Float32Array; w: number; h: number } {
  const bw = Math.ceil(w / size);
  const bh = Math.ceil(h / size);
  const data = new Float32Array(bw * bh).fill(Number.NaN);
  for (let j = 0; j < h; j++) {
    const o = ((j / size) | 0) * bw;
    for (let i = 0; i < w; i++) {
      const x = v[j * w + i];
      if (x !== x) continue;
      const k = o + ((i / size) | 0);
      const c = data[k];
      if (c !== c || Math.abs(x) > Math.abs(c)) data[k] = x;
    }
  }
  return { data, w: bw, h: bh };
}
