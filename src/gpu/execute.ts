/**
 * The WebGPU executor of a whole draw list: host-agnostic (Dawn for Node or a browser page).
 *
 * Inputs: a GpuContext, a DrawList (src/drawlist/types.ts), its assets decoded (assets.ts), options.
 * Outputs: the stage fields in DRAWLIST_STAGES order — raster-layer0, raster, base, after-support, after-stamps,
 *   after-locations, pre-encode (Float32Array n², row 0 = ymin) — the final UNORM16 codes, per-stage timings.
 * Stage by stage (each a GPU pass of this folder; the host code only orders passes and moves bytes):
 *   raster-layer0  raster.ts, layer 0's triangles ADDed into a cleared r32float target
 *   raster         raster.ts, layer 100's triangles ADDed onto it
 *   base           smoothing.ts, the chain with the list's filterFullResolution (the article's taps, checked equal)
 *   after-support  support.ts, envelopes → targets → shapes in order (read-modify-write draws)
 *   after-stamps   asset-draw.ts, each stamp: its footprint query (envelope.ts) on the field as it stands, then the
 *                  draw, blend unit ADD/MAX/MIN or read-modify-write lerp
 *   after-locations asset-draw.ts, location programs with the support targets (read-modify-write)
 *   pre-encode     outer.ts, radial blend with the constant or the raster stage field
 *   final          encode.ts, the list's range with the rule of `opts.encodeRule` (default 'd3d', the list's rule)
 * Every pass of one stage goes into one command encoder; stages are separated by a wait (timings) and a read-back
 * (of the stages opts.readBack asks for; all by default).
 */
import type { DrawList, DrawListStage, FootprintOperand } from '../drawlist/types.js';
import { fieldTexture, GpuInputError, readField, type AdapterRecord, type GpuContext, type GpuGrid } from './context.js';
import { assetDrawSet, assetTexture, type AssetDrawParams, type LodSource, type UvSource } from './asset-draw.js';
import type { DecodedAsset } from './assets.js';
import { encodeField, type EncodeRule } from './encode.js';
import { envelopeRunner, pixelOf, pixelSpan, type EnvelopeQuery } from './envelope.js';
import { encodeOuterBlend } from './outer.js';
import { encodeRaster, measureSubpixelBits } from './raster.js';
import { encodeSmoothingChain, GPU_TAPS } from './smoothing.js';
import { encodeSupport, type GpuSupportLocation } from './support.js';

export type FieldStage = Exclude<DrawListStage, 'final'>;
/** The float stages in execution order — written here independently on purpose: src/gpu is the independent reference and reads nothing of src/conventions (the type ties the names to the declaration). */
export const FIELD_STAGES: readonly FieldStage[] = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode'];

export interface ExecuteOptions {
  /** Float → UNORM16 rule of the encode shader (default 'd3d', the rule the draw list names). */
  encodeRule?: EncodeRule;
  /** How the asset draws form their level of detail (default 'derivatives'; see asset-draw.ts). */
  lod?: LodSource;
  /** How the asset draws form (u, v) (default 'inverse', the draw list's worldToLocal per pixel; see asset-draw.ts). */
  uv?: UvSource;
  /** Called with each stage's field as soon as it is read back; with it, fields are not kept in the result. */
  onStage?: (stage: FieldStage, field: Float32Array) => void | Promise<void>;
  /** Progress lines (e.g. to stderr). */
  progress?: (line: string) => void;
  /** Structured progress: each stage as it starts, and when it is done (GPU work, read-back, onStage delivery). */
  onProgress?: (e: StageEvent) => void;
  /**
   * Which stage fields are read back (default: all). A stage not read back is still computed and waited for (every
   * later stage needs it) but costs no copy to the host and is not handed to onStage.
   */
  readBack?: (stage: FieldStage) => boolean;
}

/**
 * A stage starts, or is done: `ms` = its whole time, split into GPU work, read-back and delivery (onStage). For
 * 'final', gpuMs covers the encode and the codes' read-back together.
 */
export type StageEvent =
  { stage: DrawListStage; phase: 'start' } | { stage: DrawListStage; phase: 'done'; ms: number; gpuMs: number; readbackMs: number; deliverMs: number };

export interface GpuRunResult {
  fields: Partial<Record<FieldStage, Float32Array>>;
  codes: Uint16Array;
  adapter: AdapterRecord;
  /** Wall time per stage (GPU work + read-back), ms. */
  timings: Record<string, number>;
  /** Counts for the report: draws per section. */
  counts: { layer0: number; layer100: number; supportShapes: number; stamps: number; locations: number };
}

/** Refuses a list whose smoothing section is not the rule the WGSL implements (the article's taps, 3 levels). */
export function checkSmoothingSection(dl: DrawList): void {
  const s = dl.smoothing;
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((v, k) => v === b[k]);
  if (!same(s.offsets, GPU_TAPS.offsets) || !same(s.weights, GPU_TAPS.weights)) {
    throw new GpuInputError(
      `GPU executor: the list's smoothing taps (offsets ${JSON.stringify(s.offsets)}, weights ${JSON.stringify(s.weights)}) differ from the article's, which the WGSL implements`,
    );
  }
  if (s.levels !== 3) throw new GpuInputError(`GPU executor: smoothing.levels must be 3, got ${s.levels}`);
  if (s.combine !== '(h2 - h3) * 0.5 + h3') throw new GpuInputError(`GPU executor: smoothing.combine ${JSON.stringify(s.combine)} is not the article's`);
  if (s.sampler !== 'linear-clamp') throw new GpuInputError(`GPU executor: smoothing.sampler ${JSON.stringify(s.sampler)} is not linear-clamp`);
}

export async function executeDrawList(
  ctx: GpuContext,
  dl: DrawList,
  assets: ReadonlyMap<string, DecodedAsset>,
  opts: ExecuteOptions = {},
): Promise<GpuRunResult> {
  const g = dl.grid;
  if (g.convention !== 'texel-centre' || g.rowDirection !== 'row0-at-ymin')
    throw new GpuInputError(`GPU executor: grid must be texel-centre, row0-at-ymin; got ${g.convention}, ${g.rowDirection}`);
  if (g.n % 8 !== 0) throw new GpuInputError(`GPU executor: grid.n must be divisible by 8 (three halvings), got ${g.n}`);
  checkSmoothingSection(dl);
  const grid: GpuGrid = { xmin: g.xmin, ymin: g.ymin, size: g.size, n: g.n };
  const n = g.n;
  const dev = ctx.device;
  const timings: Record<string, number> = {};
  const fields: Partial<Record<FieldStage, Float32Array>> = {};
  const say = opts.progress ?? (() => {});
  const trash: { destroy(): void }[] = [];
  const textures = new Map<string, GPUTexture>();

  const started = (name: DrawListStage) => opts.onProgress?.({ stage: name, phase: 'start' });
  const stage = async (name: FieldStage, tex: GPUTexture, t0: number) => {
    await dev.queue.onSubmittedWorkDone();
    const t1 = performance.now();
    const field = !opts.readBack || opts.readBack(name) ? await readField(ctx, tex) : null;
    const t2 = performance.now();
    timings[name] = t2 - t0;
    say(`gpu ${name}: ${timings[name].toFixed(0)} ms`);
    if (field && opts.onStage) await opts.onStage(name, field);
    else if (field) fields[name] = field;
    const t3 = performance.now();
    opts.onProgress?.({ stage: name, phase: 'done', ms: t3 - t0, gpuMs: t1 - t0, readbackMs: t2 - t1, deliverMs: t3 - t2 });
  };

  const raster = fieldTexture(ctx, n, n, 'raster');
  const field = fieldTexture(ctx, n, n, 'field');
  const old = fieldTexture(ctx, n, n, 'field copy');
  trash.push(raster, field, old);
  try {
    // Layers 0 and 100.
    const [l0, l100] = dl.raster.layers;
    started('raster-layer0');
    let t0 = performance.now();
    let enc = dev.createCommandEncoder();
    const vb0 = encodeRaster(ctx, enc, grid, l0.xyh, raster, true);
    dev.queue.submit([enc.finish()]);
    if (vb0) trash.push(vb0);
    await stage('raster-layer0', raster, t0);
    started('raster');
    t0 = performance.now();
    enc = dev.createCommandEncoder();
    const vb1 = encodeRaster(ctx, enc, grid, l100.xyh, raster, false);
    dev.queue.submit([enc.finish()]);
    if (vb1) trash.push(vb1);
    await stage('raster', raster, t0);

    // Smoothing into `field`.
    started('base');
    t0 = performance.now();
    enc = dev.createCommandEncoder();
    // `old` (free until support) takes the N² X pass and `field` the N² level, which the combine then overwrites.
    const chain = encodeSmoothingChain(ctx, enc, raster, field, dl.smoothing.filterFullResolution, { scratch: old, level: field });
    dev.queue.submit([enc.finish()]);
    await stage('base', field, t0);
    for (const t of chain.created) t.destroy();
    for (const b of chain.buffers) b.destroy();

    // Support.
    started('after-support');
    t0 = performance.now();
    const supIndex = new Map<number, number>();
    dl.support.locations.forEach((L, k) => supIndex.set(L.location, k));
    const locs: GpuSupportLocation[] = dl.support.locations.map((L) => ({
      shapes: L.shapes.map((s) => ({ ...s, halfSize: [s.halfSize[0], s.halfSize[1]] as [number, number] })),
      children: L.children.map((c) => {
        const index = supIndex.get(c.location);
        if (index === undefined) throw new GpuInputError(`GPU executor: support location ${L.location} names child ${c.location}, which has no support entry`);
        return { index, weight: c.weight };
      }),
      offset: L.offset,
      floor: L.floor,
    }));
    enc = dev.createCommandEncoder();
    const sup = encodeSupport(ctx, enc, grid, locs, dl.support.a, dl.support.b, field, old);
    dev.queue.submit([enc.finish()]);
    trash.push(sup.targets, sup.widths, sup.envelopes, ...sup.buffers);
    await stage('after-support', field, t0);

    // Asset textures, each uploaded once.
    const assetTex = (id: string): { tex: GPUTexture; worldSize: number } => {
      const a = assets.get(id);
      if (!a) throw new GpuInputError(`GPU executor: asset ${JSON.stringify(id)} was not supplied`);
      let t = textures.get(id);
      if (!t) {
        t = assetTexture(ctx, a.levels, a.sizes, id);
        textures.set(id, t);
      }
      return { tex: t, worldSize: a.worldSize };
    };
    const px = g.size / n;
    const dummy = dev.createBuffer({ size: 16, usage: 0x80 | 0x8 });
    trash.push(dummy);

    // Natural stamps: footprint query (when the program has an operand) just before each draw.
    started('after-stamps');
    t0 = performance.now();
    const stampDraws = dl.stamps.draws;
    const queries: EnvelopeQuery[] = stampDraws.map((d) => {
      const [i0, i1] = pixelSpan(d.bounds[0], d.bounds[1], g.xmin, px, n);
      const [j0, j1] = pixelSpan(d.bounds[2], d.bounds[3], g.ymin, px, n);
      const [ci, cj] = pixelOf(d.centre[0], d.centre[1], grid);
      return { i0, i1, j0, j1, ci, cj };
    });
    const env = envelopeRunner(ctx, grid, queries);
    trash.push(env);
    const lod = opts.lod ?? 'derivatives';
    const uv = opts.uv ?? 'inverse';
    // All draws' constants and quads are prepared once (asset-draw.ts); draws run in order, a footprint query just
    // before each draw that has an operand, consecutive plain draws sharing a render pass. Batches of draws per
    // command buffer keep the encoder's memory bounded.
    const stampSet = assetDrawSet(
      ctx,
      grid,
      stampDraws.map((d, k) => {
        const { tex, worldSize } = assetTex(d.asset);
        const p = d.program;
        const params: AssetDrawParams = { mode: p.mode, k: p.k, lodSource: lod, lodList: d.lod, envIndex: k, uvSource: uv, worldToLocal: d.worldToLocal };
        if (p.mode !== 'add') operandParams(params, p.c);
        if (p.mode === 'lerp') {
          params.a = p.a;
          params.sMax = p.sMax;
        }
        return { asset: tex, worldSize, localToWorld: d.localToWorld, params };
      }),
      field,
      { env: env.result, targets: dummy, old },
    );
    trash.push(...stampSet.buffers);
    const BATCH = 128;
    for (let b0 = 0; b0 < stampDraws.length; b0 += BATCH) {
      enc = dev.createCommandEncoder();
      for (let k = b0; k < Math.min(stampDraws.length, b0 + BATCH); k++) {
        stampSet.encode(enc, k, stampDraws[k].program.mode !== 'add' ? (e) => env.encode(e, field, k, 1) : undefined);
      }
      stampSet.end();
      dev.queue.submit([enc.finish()]);
    }
    await stage('after-stamps', field, t0);

    // Location textures.
    started('after-locations');
    t0 = performance.now();
    const locSet = assetDrawSet(
      ctx,
      grid,
      dl.locations.draws.map((d) => {
        const { tex, worldSize } = assetTex(d.asset);
        const ti = supIndex.get(d.program.supportTarget);
        if (ti === undefined)
          throw new GpuInputError(`GPU executor: location draw names support target ${d.program.supportTarget}, which has no support entry`);
        const params: AssetDrawParams = { mode: 'location', lodSource: lod, lodList: d.lod, targetIndex: ti, uvSource: uv, worldToLocal: d.worldToLocal };
        return { asset: tex, worldSize, localToWorld: d.localToWorld, params };
      }),
      field,
      { env: dummy, targets: sup.targets, old },
    );
    trash.push(...locSet.buffers);
    enc = dev.createCommandEncoder();
    for (let k = 0; k < dl.locations.draws.length; k++) locSet.encode(enc, k);
    locSet.end();
    dev.queue.submit([enc.finish()]);
    await stage('after-locations', field, t0);

    // Outer blend into `old` (then it is the pre-encode field).
    started('pre-encode');
    t0 = performance.now();
    enc = dev.createCommandEncoder();
    const o = dl.outer;
    const outerInput = o.input.kind === 'constant' ? o.input.height : raster;
    trash.push(encodeOuterBlend(ctx, enc, grid, { centre: o.centre, inner: o.inner, outer: o.outer }, field, outerInput, old));
    dev.queue.submit([enc.finish()]);
    await stage('pre-encode', old, t0);

    // Encode.
    started('final');
    t0 = performance.now();
    const codes = await encodeField(ctx, old, { min: dl.encoding.min, max: dl.encoding.max }, opts.encodeRule ?? 'd3d');
    timings.final = performance.now() - t0;
    say(`gpu final: ${timings.final.toFixed(0)} ms`);
    opts.onProgress?.({ stage: 'final', phase: 'done', ms: timings.final, gpuMs: timings.final, readbackMs: 0, deliverMs: 0 });
    ctx.adapter.subpixelBits ??= await measureSubpixelBits(ctx);
    return {
      fields,
      codes,
      adapter: ctx.adapter,
      timings,
      counts: {
        layer0: l0.count,
        layer100: l100.count,
        supportShapes: locs.reduce((s, L) => s + L.shapes.length, 0),
        stamps: stampDraws.length,
        locations: dl.locations.draws.length,
      },
    };
  } finally {
    await dev.queue.onSubmittedWorkDone();
    for (const t of trash) t.destroy();
    for (const t of textures.values()) t.destroy();
  }
}

function operandParams(params: AssetDrawParams, c: FootprintOperand): void {
  params.operand = c.query;
  if (c.plus !== undefined) params.plus = c.plus;
}
