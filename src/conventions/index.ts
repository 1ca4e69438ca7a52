/**
 * Every convention of the pipeline, declared once, as data.
 *
 * Inputs: nothing (the declaration) or an override naming the conventions to change (ablations, tests).
 * Outputs: `DEFAULT_CONVENTIONS` — the plain values every stage, kernel binding, report and notebook reads;
 * `CONVENTION_SOURCES` — for every leaf of the declaration its label and what it rests on:
 *   [D] a sentence of the article (000) — quoted briefly, with its section;
 *   [R] heightbench's choice, with the reason;
 *   [G] a GPU convention (shared/notes/gpu-rules.md).
 * `resolveConventions(override)` gives the declaration with some leaves changed; unknown paths and values of the wrong
 * kind are refused with the path and the offending value, and every value is checked against what the stages can do.
 * [R] A convention that exists must act: test/conventions.test.ts changes each leaf in the declaration alone and
 *     shows that the output moves (and that the kernel and JavaScript executors still agree bit for bit).
 */
import { InputRangeError } from '../errors.js';

/** The field stages in execution order: the names of the stage files every executor writes. */
export const STAGES = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode', 'final'] as const;
export type StageName = (typeof STAGES)[number];
/** The stage that holds UNORM16 codes (the last one); every other stage holds float metres. */
type Last<T extends readonly unknown[]> = T extends readonly [...unknown[], infer L] ? L : never;
export const ENCODED_STAGE = STAGES[STAGES.length - 1] as Last<typeof STAGES>;
export type FloatStageName = Exclude<StageName, typeof ENCODED_STAGE>;
/** The stages that hold float fields (stage dumps, attribution, check), in execution order: STAGES less the encoded one. */
export const FLOAT_STAGES: readonly FloatStageName[] = Object.freeze(STAGES.filter((s): s is FloatStageName => s !== ENCODED_STAGE));

export type Addressing = 'clamp' | 'wrap';
export type SubTexel = 'exact' | 'hw8';
export type RowDirection = 'row0-at-ymin' | 'row0-at-ymax';

export interface Conventions {
  /** Stage names in execution order. */
  stages: readonly StageName[];
  grid: {
    /** Where pixel i samples, in pixels from its left edge: world x = xmin + (i + pixelCentre)·L/N. */
    pixelCentre: number;
    /** Which way stored rows advance relative to world Y. */
    rowDirection: RowDirection;
  };
  sampling: {
    /** Texel-space coordinate of a normalised coordinate u: x = u·N − texelCentre. */
    texelCentre: number;
    /** What a tap outside the level reads (the base filter chain and its composition). */
    addressing: Addressing;
    /** Sub-texel precision of the bilinear weights of the base filter chain. */
    subTexel: SubTexel;
  };
  resample: {
    /** Destination i reads source (i + alignment)·Ns/Nd − alignment (0.5: centre-aligned; 0: index 2i). */
    alignment: number;
  };
  raster: {
    /** Fraction bits of the vertex snap (16.8 fixed point); the rule itself is in src/cpu/raster.ts. */
    subpixelBits: number;
    fillRule: 'top-left';
    blend: 'add';
  };
  smoothing: {
    /** Main-axis tap offsets, texels of the level. */
    offsets: readonly number[];
    weights: readonly number[];
    /** Offset on the other axis of each pass, texels. */
    crossAxisOffset: number;
    /** Filtered levels below the full resolution. */
    levels: number;
    /** Whether the N² raster is filtered before the first halving. */
    filterFullResolution: boolean;
    order: 'downsample-then-filter';
    passes: 'x-then-y';
    /** 'difference': (h2 − h3)·0.5 + h3 in that float32 order; 'mean': (h2 + h3)·0.5. */
    combine: 'difference' | 'mean';
  };
  corners: {
    /** Source weight reach, metres: w = (1 − d/range)^exponent for 0 ≤ d < range. */
    range: number;
    exponent: number;
    /** 'power': the article's (1 − d/range)^exponent; 'gaussian': exp(−½(d/gaussianSigma)²) (an ablation). */
    shape: 'power' | 'gaussian';
    gaussianSigma: number;
    /** Near-distance enhancement below nearRange: × (1 − d/nearRange) × nearGain. */
    nearRange: number;
    nearGain: number;
    /** 'strict': the article's step at d = nearRange; 'smoothed': × (1 + (nearGain − 1)(1 − d/nearRange)), continuous. */
    nearRule: 'strict' | 'smoothed';
    /** Weight of a negative adjusted distance (source and self term). */
    insideWeight: number;
    /** The self term joins the same numerator and denominator as the sources; no numerator for d < 0. */
    selfTerm: 'joint';
    /** The vertical scale source amplitudes are stored normalised by. */
    heightScale: number;
  };
  fans: {
    /** 'edge-midpoints': mean of the edge midpoints; 'area-centroid': the polygon's area centroid (an ablation). */
    centre: 'edge-midpoints' | 'area-centroid';
    /** 'last': the last flagged corner met overwrites the centre height; 'average': the mean of the flagged corners. */
    flagged: 'last' | 'average';
    /** 'generator': edges in generator order; 'sorted': sorted by their midpoints' coordinates (x, then y). */
    edgeOrder: 'generator' | 'sorted';
  };
  draws: {
    /** 'generator': instance order; 'sorted': stable-sorted by asset key (an ablation). */
    order: 'generator' | 'sorted';
    /** 'footprint': trilinear at the footprint LOD; 'level0': the mip chain dropped, level 0 only. */
    lod: 'footprint' | 'level0';
    /** Location-texture border fade width, as a fraction of the asset side. */
    borderWindow: number;
  };
  outer: {
    inner: number;
    outer: number;
    /** Height of the outer target when its draw is not eligible, metres. */
    initialHeight: number;
  };
  encoding: {
    min: number;
    max: number;
    maxCode: number;
    /** 'half-up': the Direct3D FLOAT→UNORM rule (+0.5, truncate); 'half-even': ties to even (an ablation). */
    rounding: 'half-up' | 'half-even';
  };
}

/** A deep-partial override of the declaration (arrays are replaced whole). */
export type ConventionOverride = { [K in keyof Conventions]?: Conventions[K] extends readonly unknown[] ? Conventions[K] : Partial<Conventions[K]> };

export type SourceLabel = 'D' | 'R' | 'G';
export interface ConventionSource {
  label: SourceLabel;
  /** [D]: section and the article's words it rests on; [R]: the choice and why; [G]: the GPU rule. */
  basis: string;
}

const freeze = <T>(o: T): T => {
  for (const v of Object.values(o as object)) if (v && typeof v === 'object') freeze(v);
  return Object.freeze(o);
};

/** The declaration: the conventions heightbench implements. */
export const DEFAULT_CONVENTIONS: Readonly<Conventions> = freeze<Conventions>({
  stages: [...STAGES],
  grid: { pixelCentre: 0.5, rowDirection: 'row0-at-ymin' },
  sampling: { texelCentre: 0.5, addressing: 'clamp', subTexel: 'exact' },
  resample: { alignment: 0.5 },
  raster: { subpixelBits: 8, fillRule: 'top-left', blend: 'add' },
  smoothing: {
    offsets: [-4.30908, -2.37532, -0.5, 1.37532, 3.30908],
    weights: [0.055028, 0.244038, 0.40187, 0.244038, 0.055028],
    crossAxisOffset: 0.5,
    levels: 3,
    filterFullResolution: true,
    order: 'downsample-then-filter',
    passes: 'x-then-y',
    combine: 'difference',
  },
  corners: {
    range: 512,
    exponent: 6,
    shape: 'power',
    gaussianSigma: 128,
    nearRange: 96,
    nearGain: 10,
    nearRule: 'strict',
    insideWeight: 1000,
    selfTerm: 'joint',
    heightScale: 512,
  },
  fans: { centre: 'edge-midpoints', flagged: 'last', edgeOrder: 'generator' },
  draws: { order: 'generator', lod: 'footprint', borderWindow: 0.15 },
  outer: { inner: 620, outer: 680, initialHeight: 0 },
  encoding: { min: -500, max: 500, maxCode: 65535, rounding: 'half-up' },
});

const D = (basis: string): ConventionSource => ({ label: 'D', basis });
const R = (basis: string): ConventionSource => ({ label: 'R', basis });
const G = (basis: string): ConventionSource => ({ label: 'G', basis });

/** Label and basis of every leaf of the declaration (test/conventions.test.ts checks the two cover each other). */
export const CONVENTION_SOURCES: Readonly<Record<string, ConventionSource>> = Object.freeze({
  stages: D(
    '"Organizing the Implementation around Stage Inputs and Outputs": base, support, natural Stamps, location textures, outer blend, then R16 encoding; names by content',
  ),
  'grid.pixelCentre': D('"Mapping Pixel Centers to Texture Coordinates": "pixel i lies at xmin+(i+0.5)×L/N"'),
  'grid.rowDirection': R(
    'the article asks for an explicit row direction ("image rows must have an explicit direction") without giving one; row 0 at ymin is the same formula as X, stated in every sidecar',
  ),
  'sampling.texelCentre': G(
    "bilinear sampling: texel-space x = u·N − 0.5 (Direct3D, Vulkan, CUDA agree); the article's figure 13 maps world to continuous texel coordinates the same way",
  ),
  'sampling.addressing': D('"Why Half-Texel Offsets Belong to the Formula": "With clamp addressing, samples outside the texture remain at its edge"'),
  'sampling.subTexel': R(
    "exact float fractions: a GPU keeps at least 8 sub-texel bits (gpu-rules.md), so no fixed width reproduces a given GPU; 'hw8' is the hardware-like ablation",
  ),
  'resample.alignment': D('"Resampling is center-aligned too": destination i reads source (i+0.5)×Ns/Nd−0.5'),
  'raster.subpixelBits': G(
    'rasterization: vertex positions snap to 16.8 fixed point before coverage (src/cpu/raster.ts implements the snap; fewer bits mimic a device that snaps coarser — SwiftShader measured 4)',
  ),
  'raster.fillRule': G('rasterization: the top-left rule covers a shared edge exactly once'),
  'raster.blend': D('"Rasterizing Height Geometry…": "two layers accumulated with ADD blending"'),
  'smoothing.offsets': D('"Multilevel Smoothing…": main-axis offsets −4.30908, −2.37532, −0.5, 1.37532, 3.30908; "not a reason to recenter the kernel"'),
  'smoothing.weights': D('weights 0.055028, 0.244038, 0.401870, 0.244038, 0.055028, summing to 1.000002: "do not renormalize them"'),
  'smoothing.crossAxisOffset': D('"the other axis also includes a half-texel offset"'),
  'smoothing.levels': D('"successively downsamples to 2048², 1024², and 512², applying the corresponding filters at each level"'),
  'smoothing.filterFullResolution': R(
    'a reading, not a statement: "Starting with the 4096² floating-point field, the pipeline successively downsamples … applying the corresponding filters at each level" leaves open whether the N² field itself is filtered; supporting sentences: "Although the final blend binds four levels" (four filtered levels only if N² is one) and "A sharp boundary may spread slightly at high resolution, then enter a larger neighborhood through downsampling" (filtering before the first halving). The other reading is the ablation unfiltered-raster',
  ),
  'smoothing.order': D('each level is the filter of the halved previous level: "Lower-resolution inputs have already been filtered and resized upstream"'),
  'smoothing.passes': D('"a separable five-tap filter: first along X, then along Y"'),
  'smoothing.combine': D('"Retain the single-precision order (h2-h3)×0.5+h3"'),
  'corners.range': D('"0 ≤ d < 512: w = (1 − d / 512)^6"'),
  'corners.exponent': D('"the sixth power causes rapid attenuation"'),
  'corners.shape': D('"replacing it with a Gaussian changes the algorithm"'),
  'corners.gaussianSigma': R('only used by the Gaussian ablation: σ = 128 m, a quarter of the 512 m reach'),
  'corners.nearRange': D('"If d < 96, then w = w × (1 − d / 96) × 10"'),
  'corners.nearGain': D('"It is 10 at zero distance, 5 at 48 m"'),
  'corners.nearRule': D('"multiply by the near-distance factor when d<96, but skip that multiplication at d=96"'),
  'corners.insideWeight': D('"d < 0: w = 1000"; "the self weight is 1000 below zero"'),
  'corners.selfTerm': D('"The corner\'s self term enters the same numerator and denominator as the sources"; the negative branch adds no numerator'),
  'corners.heightScale': D('"The source calculation discussed here uses a scale of 512"'),
  'fans.centre': D('"The ordinary center position is the average of edge midpoints … It is generally not the area centroid"'),
  'fans.flagged': D('"the last encountered flagged corner to overwrite the center height … This is not an average of every flagged corner"'),
  'fans.edgeOrder': D('"Preserve the generator\'s edge order instead of sorting edges by coordinates"'),
  'draws.order': D('"Preserve the established instance and draw order. Sorting by resource key … requires an equivalence argument"'),
  'draws.lod': D(
    '"Supplying only the highest-resolution mip0 can produce different sampled heights"; the LOD rule itself is the GPU one (gpu-rules.md, mip level of detail)',
  ),
  'draws.borderWindow': R(
    'location textures fade over 15 % of their side at each border (smoothstep), so a texture meets the ground without a step; the article gives no window',
  ),
  'outer.inner': D('"begins final outer blending 620 m from the center"'),
  'outer.outer': D('"completes it at 680 m"'),
  'outer.initialHeight': R('the article gives no initial value (its −2 m is a teaching number); a render target cleared before drawing holds 0'),
  'encoding.min': D('"u = clamp((Hmeters + 500) × 0.001, 0, 1)"'),
  'encoding.max': D('"This covers approximately −500 to 500 m"'),
  'encoding.maxCode': D('"Decode integer codes from 0 to 65535"'),
  'encoding.rounding': G(
    'Float → UNORM16: "c = c × (2^16 − 1); c = c + 0.5; drop the fraction" (round half up, not ties-to-even); the article: "UNORM16 explicitly identifies this format-conversion rule"',
  ),
});

/** Every leaf path of a conventions object ('smoothing.offsets', 'grid.pixelCentre', …), in declaration order. */
export function conventionPaths(c: Conventions = DEFAULT_CONVENTIONS): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(c)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const kk of Object.keys(v)) out.push(`${k}.${kk}`);
    else out.push(k);
  }
  return out;
}

/** The value at a leaf path. */
export function conventionValue(c: Conventions, path: string): unknown {
  const [a, b] = path.split('.');
  const top = (c as unknown as Record<string, unknown>)[a];
  return b === undefined ? top : (top as Record<string, unknown>)[b];
}

const show = (v: unknown) => JSON.stringify(v);

/** What the stages can do with each leaf: a reason the value is refused, or null. */
function refusal(path: string, v: unknown, c: Conventions): string | null {
  const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  const oneOf = (...xs: unknown[]) => (xs.includes(v) ? null : `expected one of ${xs.map(show).join(', ')}`);
  switch (path) {
    case 'stages':
      return Array.isArray(v) && v.length === STAGES.length && v.every((s, i) => s === STAGES[i])
        ? null
        : `the executors run the stages ${show(STAGES)} in that order`;
    case 'grid.pixelCentre':
    case 'sampling.texelCentre':
    case 'resample.alignment':
    case 'smoothing.crossAxisOffset':
      return finite(v) && (v as number) >= 0 && (v as number) < 1 ? null : 'expected a number in [0, 1)';
    case 'grid.rowDirection':
      return oneOf('row0-at-ymin', 'row0-at-ymax');
    case 'sampling.addressing':
      return oneOf('clamp', 'wrap');
    case 'sampling.subTexel':
      return oneOf('exact', 'hw8');
    case 'raster.subpixelBits':
      return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 8 ? null : 'the rasterizer snaps to 0…8 fraction bits (src/cpu/raster.ts snapFixed)';
    case 'raster.fillRule':
      return oneOf('top-left');
    case 'raster.blend':
      return oneOf('add');
    case 'smoothing.offsets':
    case 'smoothing.weights': {
      if (!Array.isArray(v) || !v.every(finite)) return 'expected an array of finite numbers';
      if (v.length !== 5) return `the filter passes have five taps, got ${v.length}`;
      if (path === 'smoothing.offsets' && !v.every((x, i) => i === 0 || x >= v[i - 1])) return 'offsets must ascend';
      return null;
    }
    case 'smoothing.levels':
      return v === 3 ? null : 'the chain halves three times (N/2, N/4, N/8) and composes the N/4 and N/8 levels';
    case 'smoothing.filterFullResolution':
      return typeof v === 'boolean' ? null : 'expected true or false';
    case 'smoothing.order':
      return oneOf('downsample-then-filter');
    case 'smoothing.passes':
      return oneOf('x-then-y');
    case 'smoothing.combine':
      return oneOf('difference', 'mean');
    case 'corners.range':
    case 'corners.nearRange':
    case 'corners.gaussianSigma':
    case 'corners.heightScale':
    case 'corners.exponent':
    case 'corners.nearGain':
    case 'corners.insideWeight':
      return finite(v) && (v as number) > 0 ? null : 'expected a positive number';
    case 'corners.shape':
      return oneOf('power', 'gaussian');
    case 'corners.nearRule':
      return oneOf('strict', 'smoothed');
    case 'corners.selfTerm':
      return oneOf('joint');
    case 'fans.centre':
      return oneOf('edge-midpoints', 'area-centroid');
    case 'fans.flagged':
      return oneOf('last', 'average');
    case 'fans.edgeOrder':
      return oneOf('generator', 'sorted');
    case 'draws.order':
      return oneOf('generator', 'sorted');
    case 'draws.lod':
      return oneOf('footprint', 'level0');
    case 'draws.borderWindow':
      return finite(v) && (v as number) > 0 && (v as number) <= 0.5 ? null : 'expected a number in (0, 0.5]';
    case 'outer.inner':
    case 'outer.outer':
      if (!finite(v) || (v as number) < 0) return 'expected a non-negative number of metres';
      return c.outer.outer > c.outer.inner ? null : `expected outer.outer > outer.inner, got ${c.outer.inner} and ${c.outer.outer}`;
    case 'outer.initialHeight':
      return finite(v) ? null : 'expected a finite number of metres';
    case 'encoding.min':
    case 'encoding.max':
      if (!finite(v)) return 'expected a finite number of metres';
      return c.encoding.max > c.encoding.min ? null : `expected encoding.max > encoding.min, got ${c.encoding.min} and ${c.encoding.max}`;
    case 'encoding.maxCode':
      return v === 65535 ? null : 'R16 UNORM has 65535 as its largest code';
    case 'encoding.rounding':
      return oneOf('half-up', 'half-even');
    default:
      return 'not a convention';
  }
}

/**
 * The declaration with `override`'s leaves changed (the declaration itself when there is none). Refuses unknown
 * paths and values the stages cannot implement, naming the path, the value and the reason.
 */
export function resolveConventions(override?: ConventionOverride | null, base: Conventions = DEFAULT_CONVENTIONS): Conventions {
  if (!override || Object.keys(override).length === 0) return base;
  const out = JSON.parse(JSON.stringify(base)) as Conventions;
  const o = out as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(override)) {
    if (!(k in o)) throw new InputRangeError(`conventions: ${show(k)} is not a convention group (expected one of ${Object.keys(o).join(', ')})`);
    if (Array.isArray(o[k]) || typeof o[k] !== 'object') o[k] = v;
    else {
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new InputRangeError(`conventions.${k}: expected an object of conventions, got ${show(v)}`);
      const group = o[k] as Record<string, unknown>;
      for (const [kk, vv] of Object.entries(v)) {
        if (!(kk in group)) throw new InputRangeError(`conventions.${k}.${kk} is not a convention (expected one of ${Object.keys(group).join(', ')})`);
        group[kk] = Array.isArray(vv) ? [...vv] : vv;
      }
    }
  }
  for (const p of conventionPaths(out)) {
    const why = refusal(p, conventionValue(out, p), out);
    if (why) throw new InputRangeError(`conventions.${p}: ${why}; got ${show(conventionValue(out, p))}`);
  }
  return freeze(out);
}

/** Leaf paths whose values differ between two conventions objects (for reports: what an ablation changed). */
export function conventionDifferences(a: Conventions, b: Conventions = DEFAULT_CONVENTIONS): string[] {
  return conventionPaths(a).filter((p) => show(conventionValue(a, p)) !== show(conventionValue(b, p)));
}

/** Merges two overrides (the second wins leaf by leaf). */
export function mergeOverrides(a: ConventionOverride | undefined, b: ConventionOverride | undefined): ConventionOverride {
  const out: Record<string, unknown> = { ...(a ?? {}) };
  for (const [k, v] of Object.entries(b ?? {})) {
    const prev = out[k];
    out[k] = prev && typeof prev === 'object' && !Array.isArray(prev) && v && typeof v === 'object' && !Array.isArray(v) ? { ...prev, ...v } : v;
  }
  return out as ConventionOverride;
}

/** The smoothing weights' sum (1.000002 for the declared weights), left to right in float64. */
export function weightSum(c: Conventions = DEFAULT_CONVENTIONS): number {
  return c.smoothing.weights.reduce((s, w) => s + w, 0);
}
