/**
 * GPU passes: the multilevel smoothing chain as full-screen render passes over r32float textures, sampled through a
 * linear, clamp-to-edge sampler (article: "Multilevel Smoothing Connects Different Spatial Scales", "What One
 * Bilinear Sample Reads", "Why Half-Texel Offsets Belong to the Formula", "Which Terrain Variations the Final Blend
 * Retains").
 *
 * Inputs: the N² raster texture (N divisible by 8); whether the full-resolution raster is filtered first.
 * Outputs: the filtered levels (N², when filtered, then N/2, N/4, N/8) and the base at N² (caller's texture).
 * Rules [D] (constants written here from the article, not taken from the CPU code):
 *  - one filter = X pass, then Y pass over the X result; tap t samples at incoming uv + offset_t / size on the main
 *    axis and + 0.5 / size on the cross axis; offsets −4.30908, −2.37532, −0.5, 1.37532, 3.30908 texels; weights
 *    0.055028, 0.244038, 0.401870, 0.244038, 0.055028 (not renormalised), summed tap 1 … 5 in that order;
 *  - halving is centre-aligned: destination texel i reads the source at (i + 0.5)·2 − 0.5 = 2i + 0.5 texels, one
 *    bilinear sample at uv = (i + 0.5)/M (M = destination size), the mean of a 2 × 2 block;
 *  - base: h2 = Sample(L_{N/4}, uv), h3 = Sample(L_{N/8}, uv), base = (h2 − h3) × 0.5 + h3, written in that order.
 * Rule [D, filter before each halving]: L0 = filter(raster) at N², L(k+1) = filter(halve(Lk)) at N/2, N/4,
 *   N/8 (filterFullResolution = true). With filterFullResolution = false the first halving reads the raster itself.
 * [R] The incoming uv is the fragment's pixel centre @builtin(position).xy / size (exactly (i + 0.5)/N), not an
 *   interpolated varying. Texel coordinate, bilinear weights and clamping are the sampler's (the GPU decides the
 *   sub-texel precision: SwiftShader's is close to float32, many hardware GPUs keep 8 bits).
 */
import { cachedPipeline, FULLSCREEN_VS, fieldTexture, shaderModule, type GpuContext } from './context.js';

/**
 * The article's taps (texels of the level being filtered) and weights, as the WGSL below spells them — written here independently on purpose: src/gpu is the independent reference and reads nothing of src/conventions
 * (test/gpu-*.test.ts compare the GPU's output with the CPU's, which reads the declaration).
 */
export const GPU_TAPS = Object.freeze({
  offsets: Object.freeze([-4.30908, -2.37532, -0.5, 1.37532, 3.30908]),
  weights: Object.freeze([0.055028, 0.244038, 0.40187, 0.244038, 0.055028]),
});

export const SMOOTHING_WGSL = /* wgsl */ `
${FULLSCREEN_VS}
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;

fn tap(uv: vec2<f32>) -> f32 {
  return textureSampleLevel(src, samp, uv, 0.0).r;
}

// X pass: uv + (offset / width, 0.5 / height); target and source have the same size.
@fragment fn fs_filter_x(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
  let size = vec2<f32>(textureDimensions(src));
  let uv = pos.xy / size;
  let cy = uv.y + 0.5 / size.y;
  var acc = 0.055028 * tap(vec2<f32>(uv.x + -4.30908 / size.x, cy));
  acc = acc + 0.244038 * tap(vec2<f32>(uv.x + -2.37532 / size.x, cy));
  acc = acc + 0.401870 * tap(vec2<f32>(uv.x + -0.5 / size.x, cy));
  acc = acc + 0.244038 * tap(vec2<f32>(uv.x + 1.37532 / size.x, cy));
  acc = acc + 0.055028 * tap(vec2<f32>(uv.x + 3.30908 / size.x, cy));
  return vec4<f32>(acc, 0.0, 0.0, 0.0);
}

// Y pass: uv + (0.5 / width, offset / height).
@fragment fn fs_filter_y(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
  let size = vec2<f32>(textureDimensions(src));
  let uv = pos.xy / size;
  let cx = uv.x + 0.5 / size.x;
  var acc = 0.055028 * tap(vec2<f32>(cx, uv.y + -4.30908 / size.y));
  acc = acc + 0.244038 * tap(vec2<f32>(cx, uv.y + -2.37532 / size.y));
  acc = acc + 0.401870 * tap(vec2<f32>(cx, uv.y + -0.5 / size.y));
  acc = acc + 0.244038 * tap(vec2<f32>(cx, uv.y + 1.37532 / size.y));
  acc = acc + 0.055028 * tap(vec2<f32>(cx, uv.y + 3.30908 / size.y));
  return vec4<f32>(acc, 0.0, 0.0, 0.0);
}

// Halving: the target is half the source; uv = pixel centre / target size.
@fragment fn fs_halve(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
  let dst = vec2<f32>(textureDimensions(src)) * 0.5;
  return vec4<f32>(tap(pos.xy / dst), 0.0, 0.0, 0.0);
}
`;

export const COMBINE_WGSL = /* wgsl */ `
${FULLSCREEN_VS}
@group(0) @binding(0) var l2: texture_2d<f32>;
@group(0) @binding(1) var l3: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;
struct Params { size: vec2<f32> };
@group(0) @binding(3) var<uniform> p: Params;

@fragment fn fs_combine(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
  let uv = pos.xy / p.size;
  let h2 = textureSampleLevel(l2, samp, uv, 0.0).r;
  let h3 = textureSampleLevel(l3, samp, uv, 0.0).r;
  let d = h2 - h3;
  let half_d = d * 0.5;
  return vec4<f32>(half_d + h3, 0.0, 0.0, 0.0);
}
`;

type Entry = 'fs_filter_x' | 'fs_filter_y' | 'fs_halve';

function fullscreenPipeline(ctx: GpuContext, code: string, entry: string): GPURenderPipeline {
  return cachedPipeline(ctx, `smoothing:${entry}`, () => {
    const module = shaderModule(ctx, code, 'smoothing');
    return ctx.device.createRenderPipeline({
      label: entry,
      layout: 'auto',
      vertex: { module, entryPoint: 'vs_full' },
      fragment: { module, entryPoint: entry, targets: [{ format: 'r32float' }] },
      primitive: { topology: 'triangle-list' },
    });
  });
}

function drawFullscreen(enc: GPUCommandEncoder, pipeline: GPURenderPipeline, bind: GPUBindGroup, target: GPUTexture): void {
  const pass = enc.beginRenderPass({
    colorAttachments: [{ view: target.createView(), loadOp: 'clear', storeOp: 'store', clearValue: { r: 0, g: 0, b: 0, a: 0 } }],
  });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.draw(3);
  pass.end();
}

/** One single-input pass (filter X, filter Y or halve) from `src` into `dst`. */
export function encodeSmoothingPass(ctx: GpuContext, enc: GPUCommandEncoder, entry: Entry, src: GPUTexture, dst: GPUTexture): void {
  const expect = entry === 'fs_halve' ? src.width / 2 : src.width;
  if (dst.width !== expect || dst.height !== (entry === 'fs_halve' ? src.height / 2 : src.height)) {
    throw new RangeError(`${entry}: target ${dst.width}×${dst.height} does not fit source ${src.width}×${src.height}`);
  }
  const pipeline = fullscreenPipeline(ctx, SMOOTHING_WGSL, entry);
  const bind = ctx.device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: src.createView() },
      { binding: 1, resource: ctx.linearClamp },
    ],
  });
  drawFullscreen(enc, pipeline, bind, dst);
}

/** Filter = X pass into `scratch`, then Y pass into `dst` (all the same size). */
export function encodeFilter(ctx: GpuContext, enc: GPUCommandEncoder, src: GPUTexture, scratch: GPUTexture, dst: GPUTexture): void {
  encodeSmoothingPass(ctx, enc, 'fs_filter_x', src, scratch);
  encodeSmoothingPass(ctx, enc, 'fs_filter_y', scratch, dst);
}

/** base = (h2 − h3)·0.5 + h3 at every pixel centre of `dst` (N²), h2/h3 bilinear samples of `l2` (N/4) and `l3` (N/8). */
export function encodeCombine(ctx: GpuContext, enc: GPUCommandEncoder, l2: GPUTexture, l3: GPUTexture, dst: GPUTexture): GPUBuffer {
  const pipeline = cachedPipeline(ctx, 'smoothing:fs_combine', () => {
    const module = shaderModule(ctx, COMBINE_WGSL, 'combine');
    return ctx.device.createRenderPipeline({
      label: 'combine',
      layout: 'auto',
      vertex: { module, entryPoint: 'vs_full' },
      fragment: { module, entryPoint: 'fs_combine', targets: [{ format: 'r32float' }] },
      primitive: { topology: 'triangle-list' },
    });
  });
  const ub = ctx.device.createBuffer({ size: 16, usage: 0x40 | 0x8 /* UNIFORM | COPY_DST */ });
  ctx.device.queue.writeBuffer(ub, 0, new Float32Array([dst.width, dst.height, 0, 0]));
  const bind = ctx.device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: l2.createView() },
      { binding: 1, resource: l3.createView() },
      { binding: 2, resource: ctx.linearClamp },
      { binding: 3, resource: { buffer: ub } },
    ],
  });
  drawFullscreen(enc, pipeline, bind, dst);
  return ub;
}

export interface SmoothingTextures {
  /** Filtered levels, finest first: [N² (when filterFullResolution)], N/2, N/4, N/8. */
  levels: GPUTexture[];
  /** Textures the caller should destroy after the work completes (scratch, uniforms live with them). */
  scratch: GPUTexture[];
  buffers: GPUBuffer[];
  /** Every texture created here (levels and scratch, less those the caller lent): destroy these when done. */
  created: GPUTexture[];
}

/**
 * N² textures the caller lends to the chain instead of two new ones (memory: at 4096² each is 64 MiB, and
 * SwiftShader makes a texture resident when it is created): `scratch` takes the full-resolution X pass, `level` the
 * filtered N² level. `level` may be `base` itself — the N² level is read only by the first halving, before the combine
 * writes the base — but neither may be the raster.
 */
export interface LentTextures {
  scratch: GPUTexture;
  level: GPUTexture;
}

/**
 * Encodes the whole chain: raster (N²) → levels → base written into `base` (N²). `filterFullResolution` true is the
 * corrected rule (four filtered levels). The level textures are created here (or lent, see LentTextures) and returned.
 */
export function encodeSmoothingChain(
  ctx: GpuContext,
  enc: GPUCommandEncoder,
  raster: GPUTexture,
  base: GPUTexture,
  filterFullResolution = true,
  lent?: LentTextures,
): SmoothingTextures {
  const n = raster.width;
  if (raster.height !== n || n % 8 !== 0 || n < 8)
    throw new RangeError(`smoothing: the raster must be square with a size divisible by 8, got ${raster.width}×${raster.height}`);
  if (base.width !== n || base.height !== n) throw new RangeError(`smoothing: base must be ${n}×${n}, got ${base.width}×${base.height}`);
  if (lent) {
    for (const t of [lent.scratch, lent.level]) {
      if (t === raster || t.width !== n || t.height !== n)
        throw new RangeError(`smoothing: a lent texture must be ${n}×${n} and not the raster, got ${t.label} ${t.width}×${t.height}`);
    }
    if (lent.scratch === lent.level) throw new RangeError('smoothing: the lent scratch and level must be two textures');
  }
  const levels: GPUTexture[] = [];
  const scratch: GPUTexture[] = [];
  const created: GPUTexture[] = [];
  let prev = raster;
  let size = n;
  if (filterFullResolution) {
    const s = lent?.scratch ?? fieldTexture(ctx, n, n, `filter-x ${n}`);
    const l0 = lent?.level ?? fieldTexture(ctx, n, n, `level ${n}`);
    if (!lent) created.push(s, l0);
    encodeFilter(ctx, enc, raster, s, l0);
    scratch.push(s);
    levels.push(l0);
    prev = l0;
  }
  for (let k = 0; k < 3; k++) {
    size >>= 1;
    const half = fieldTexture(ctx, size, size, `halved ${size}`);
    const sx = fieldTexture(ctx, size, size, `filter-x ${size}`);
    const lv = fieldTexture(ctx, size, size, `level ${size}`);
    encodeSmoothingPass(ctx, enc, 'fs_halve', prev, half);
    encodeFilter(ctx, enc, half, sx, lv);
    scratch.push(half, sx);
    levels.push(lv);
    created.push(half, sx, lv);
    prev = lv;
  }
  const l2 = levels[levels.length - 2];
  const l3 = levels[levels.length - 1];
  const ub = encodeCombine(ctx, enc, l2, l3, base);
  return { levels, scratch, buffers: [ub], created };
}
