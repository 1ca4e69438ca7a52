/**
 * Issue 15, item 4: every convention lives in the declaration (src/conventions) and acts from there. For each leaf,
 * a run of tundra-r19 at 128² with only that leaf changed in the declaration (in-process, no other option) (a) moves
 * the output against the declared run, and (b) gives the same bytes at every stage on the SIMD kernels and on the
 * JavaScript f32 executor — or, where a kernel cannot implement the value, the SIMD executor refuses it with the
 * reason. Leaves the stages cannot vary are refused with the reason when changed. The ablation list of
 * `heightbench atlas` is made of these overrides alone.
 * Consistency checks between executors of this code (kernel against its JavaScript reference), not an independent
 * reference; the independent checks of the declared values are the golden hashes and the article's numbers elsewhere.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CONVENTION_SOURCES,
  DEFAULT_CONVENTIONS,
  conventionPaths,
  conventionValue,
  resolveConventions,
  type ConventionOverride,
} from '../src/conventions/index.js';
import { ABLATIONS } from '../src/experiments/atlas.js';
import { runPipeline, FIELD_STAGES, type RunResult } from '../src/pipeline/run.js';
import { loadRequest } from '../src/plan/request.js';
import { kernelRefusals } from '../src/cpu/context.js';

const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const keep = FIELD_STAGES.filter((s) => s !== 'final');

/** Leaves no ablation of the atlas changes, each with a value (and, where it acts only under another rule, a base). */
const EXTRA: { path: string; override: ConventionOverride; base?: ConventionOverride }[] = [
  { path: 'sampling.texelCentre', override: { sampling: { texelCentre: 0.25 } } },
  { path: 'corners.range', override: { corners: { range: 400 } } },
  { path: 'corners.exponent', override: { corners: { exponent: 4 } } },
  { path: 'corners.nearRange', override: { corners: { nearRange: 80 } } },
  { path: 'corners.nearGain', override: { corners: { nearGain: 8 } } },
  { path: 'corners.insideWeight', override: { corners: { insideWeight: 500 } } },
  { path: 'corners.gaussianSigma', override: { corners: { shape: 'gaussian', gaussianSigma: 90 } }, base: { corners: { shape: 'gaussian' } } },
  { path: 'corners.heightScale', override: { corners: { heightScale: 400 } } },
  { path: 'draws.borderWindow', override: { draws: { borderWindow: 0.25 } } },
  { path: 'outer.inner', override: { outer: { inner: 600 } } },
  { path: 'outer.outer', override: { outer: { outer: 700 } } },
  { path: 'outer.initialHeight', override: { outer: { initialHeight: -2 } } },
  { path: 'encoding.min', override: { encoding: { min: -400 } } },
  { path: 'encoding.max', override: { encoding: { max: 400 } } },
  { path: 'raster.subpixelBits', override: { raster: { subpixelBits: 4 } } },
];

/** Leaves the stages implement with one value only: changing them is refused. */
const FIXED: Record<string, unknown> = {
  stages: ['raster', 'raster-layer0', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode', 'final'],
  'raster.fillRule': 'bottom-right',
  'raster.blend': 'max',
  'smoothing.levels': 2,
  'smoothing.order': 'filter-then-downsample',
  'smoothing.passes': 'y-then-x',
  'corners.selfTerm': 'added-after',
  'encoding.maxCode': 255,
};

/** The leaves an override names. */
function leaves(o: ConventionOverride): string[] {
  return Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((kk) => `${k}.${kk}`) : [k]));
}

const variations = [
  ...ABLATIONS.filter((a) => a.option.conventions).map((a) => ({
    name: a.name,
    override: a.option.conventions!,
    base: undefined as ConventionOverride | undefined,
  })),
  ...EXTRA.map((e) => ({ name: e.path, override: e.override, base: e.base })),
];

describe('the conventions declaration', () => {
  it('labels every leaf ([D] article, [R] heightbench, [G] GPU convention) and labels nothing else', () => {
    expect(Object.keys(CONVENTION_SOURCES).sort()).toEqual(conventionPaths().sort());
    for (const [p, s] of Object.entries(CONVENTION_SOURCES)) {
      expect(['D', 'R', 'G'], p).toContain(s.label);
      expect(s.basis.length, p).toBeGreaterThan(20);
    }
  });

  it("holds the article's numbers", () => {
    const c = DEFAULT_CONVENTIONS;
    expect(c.smoothing.offsets).toEqual([-4.30908, -2.37532, -0.5, 1.37532, 3.30908]);
    expect(c.smoothing.weights).toEqual([0.055028, 0.244038, 0.40187, 0.244038, 0.055028]);
    expect([c.corners.range, c.corners.exponent, c.corners.nearRange, c.corners.nearGain, c.corners.insideWeight]).toEqual([512, 6, 96, 10, 1000]);
    expect([c.outer.inner, c.outer.outer, c.encoding.min, c.encoding.max, c.encoding.maxCode]).toEqual([620, 680, -500, 500, 65535]);
    expect([c.grid.pixelCentre, c.resample.alignment, c.smoothing.crossAxisOffset, c.draws.borderWindow]).toEqual([0.5, 0.5, 0.5, 0.15]);
  });

  it('refuses an unknown path or a value the stages cannot implement, naming path, value and reason', () => {
    expect(() => resolveConventions({ smoothing: { taps: 7 } } as unknown as ConventionOverride)).toThrow(/conventions\.smoothing\.taps is not a convention/);
    expect(() => resolveConventions({ grid: { pixelCentre: 1.5 } })).toThrow('conventions.grid.pixelCentre: expected a number in [0, 1); got 1.5');
    expect(() => resolveConventions({ smoothing: { offsets: [1, 2, 3] } })).toThrow(/five taps, got 3/);
    for (const [path, value] of Object.entries(FIXED)) {
      const [a, b] = path.split('.');
      const o = (b === undefined ? { [a]: value } : { [a]: { [b]: value } }) as ConventionOverride;
      expect(() => resolveConventions(o), path).toThrow(new RegExp(`conventions\\.${path.replace('.', '\\.')}: `));
    }
  });

  it('every leaf is either varied below or fixed (refused when changed)', () => {
    const varied = new Set(variations.flatMap((v) => leaves(v.override)));
    for (const p of conventionPaths()) expect(varied.has(p) || p in FIXED, p).toBe(true);
  });
});

describe('each convention changed in the declaration alone, tundra-r19 at 128²', () => {
  const req = loadRequest('tundra-r19', 128);
  let correct: RunResult;
  beforeAll(() => {
    correct = runPipeline(req, { precision: 'f32', keep });
    expect(correct.executor).toBe('simd');
  }, 60_000);

  const moved = (a: RunResult, b: RunResult) =>
    !bytes(a.codes).equals(bytes(b.codes)) || keep.some((s) => !bytes(a.fields.get(s)!).equals(bytes(b.fields.get(s)!)));

  it.each(variations.map((v) => [v.name, v] as const))(
    '%s: moves the output; the kernels and the JavaScript f32 path agree bit for bit',
    (_, v) => {
      const js = runPipeline(req, { precision: 'f32', executor: 'js-f32', keep, conventions: { ...v.base, ...v.override } });
      const reference = v.base ? runPipeline(req, { precision: 'f32', executor: 'js-f32', keep, conventions: v.base }) : correct;
      expect(moved(js, reference)).toBe(true);
      const refusals = kernelRefusals(resolveConventions({ ...v.base, ...v.override }));
      if (refusals.length > 0) {
        // The SIMD executor cannot implement this value: asked for explicitly it refuses with the reason; by default the
        // run takes the JavaScript executor and says so.
        expect(() => runPipeline(req, { precision: 'f32', executor: 'simd', keep, conventions: v.override })).toThrow(
          /executor simd cannot implement these conventions: .*use executor js-f32/,
        );
        expect(runPipeline(req, { precision: 'f32', keep, conventions: v.override }).executor).toBe('js-f32');
        return;
      }
      const simd = runPipeline(req, { precision: 'f32', executor: 'simd', keep, conventions: { ...v.base, ...v.override } });
      expect(simd.executor).toBe('simd');
      for (const s of keep) expect(bytes(simd.fields.get(s)!).equals(bytes(js.fields.get(s)!)), s).toBe(true);
      expect(bytes(simd.codes).equals(bytes(js.codes))).toBe(true);
    },
    60_000,
  );

  it('f32 and f64 runs interleave in one process with the same bytes as alone', () => {
    const f64 = runPipeline(req, { precision: 'f64', keep: ['base'] });
    const again = runPipeline(req, { precision: 'f32', keep });
    expect(bytes(again.codes).equals(bytes(correct.codes))).toBe(true);
    const f64again = runPipeline(req, { precision: 'f64', keep: ['base'] });
    expect(bytes(f64again.codes).equals(bytes(f64.codes))).toBe(true);
    expect(f64.executor).toBe('f64');
  }, 60_000);

  it('the draw list records the smoothing conventions in force', () => {
    const r = runPipeline(req, {
      precision: 'f32',
      conventions: { smoothing: { crossAxisOffset: 0.5, offsets: DEFAULT_CONVENTIONS.smoothing.offsets.map((o) => o + 0.5) } },
    });
    expect(r.drawList.smoothing.offsets).toEqual(DEFAULT_CONVENTIONS.smoothing.offsets.map((o) => o + 0.5));
    expect(conventionValue(resolveConventions(null), 'smoothing.offsets')).toEqual(correct.drawList.smoothing.offsets);
  }, 60_000);
});
