/**
 * GPU pass: one textured height draw (natural stamp or location texture) — a quad over the transformed asset square
 * whose fragment shader samples the asset's stored mip chain with the hardware's trilinear filtering, applies the
 * HeightProgram, and blends in the blend unit where WebGPU can (article: "Natural Stamps Turn Configured Resources
 * into Local Landforms", "The Complete Mip Chain Participates in Height Sampling", "Why Mip Selection Changes Height",
 * "Mapping World Coordinates to Local Textures").
 *
 * Inputs: the asset texture (r32float, full mip chain, decoded metres, row 0 at v = 0), its world size, the
 *   asset-local → world affine [a, b, c, d, e, f], the program and its constants, the envelope buffer and the index
 *   of this draw's existing-terrain operand, the target field and (read-modify-write programs) a copy of it.
 * Outputs: the field with the draw applied at every pixel whose centre the rasterizer puts inside the quad.
 * Who decides what [G]: coverage = the rasterizer (pixel centres, the device's vertex snapping, the fill rule on the
 *   quad's edges and its diagonal); sampling = the texture unit, trilinear (linear min/mag/mip, clamp-to-edge) via
 *   textureSampleLevel; ADD/MIN/MAX = the blend unit (src = the program's output, factors one/one).
 * (u, v) [R, measured]: 'inverse' (default) evaluates the draw list's definition per fragment in float32 —
 *   local = worldToLocal·P at the pixel centre P, uv = local/W + 0.5. 'interpolated' uses the quad's uv varying
 *   (corners (0,0) (1,0) (0,1) (1,1) at local (∓W/2, ∓W/2)), as a plain textured-quad draw would; the interpolator
 *   then works from the snapped vertex positions (SwiftShader snaps to 1/16 pixel), which moves every sample by up to
 *   1/32 pixel: on teaching-512's stamp 1 that changed samples by up to 4.2 cm, against 1.6e-5 m for 'inverse'.
 * Level of detail [G, Vulkan/Direct3D isotropic rule]: ρ = max(|∂(u·W, v·H)/∂x|, |∂(u·W, v·H)/∂y|) from the fragment's
 *   dpdx/dpdy (the GPU's derivative units), LOD = log2(ρ), clamped to [0, levels − 1], passed to textureSampleLevel
 *   ('derivatives', default). shared/notes/gpu-rules.md writes ρ with the diagonal terms only (|∂(u·W)/∂x|,
 *   |∂(v·H)/∂y|), which agrees for axis-aligned draws but gives log2(0) for a quarter-turn; the vector-length form
 *   is the one the Vulkan and Direct3D specifications give. 'list' uses the draw list's per-draw `lod` instead.
 * Programs (s = sample in metres, h = current height, c = operand + plus, float32 in the order written):
 *   add      src = k·s                  blend add  (h + k·s)
 *   max/min  src = c + k·s              blend max/min
 *   lerp     h + a·(s/sMax)·(c + k·s − h)      read-modify-write (h read from the copy)
 *   location h + win·(T + s − h), win = e(u)·e(v), e(t) = smoothstep(clamp(min(t, 1 − t)/0.15, 0, 1))
 */
import { cachedPipeline, shaderModule, type GpuContext, type GpuGrid } from './context.js';

export type AssetProgramMode = 'add' | 'max' | 'min' | 'lerp' | 'location';
export type LodSource = 'derivatives' | 'list';
/** 'inverse': uv from the draw list's worldToLocal at each pixel centre; 'interpolated': the quad's uv varying. */
export type UvSource = 'inverse' | 'interpolated';

const MODE_ID: Record<AssetProgramMode, number> = { add: 0, max: 1, min: 2, lerp: 3, location: 4 };

export const ASSET_DRAW_WGSL = /* wgsl */ `
struct Draw {
  k: f32, a: f32, s_max: f32, plus: f32,
  mode: u32, operand: u32, env_index: u32, lod_mode: u32,
  lod_list: f32, levels: f32, target_index: u32, has_plus: u32,
  inv_a: f32, inv_b: f32, inv_c: f32, inv_d: f32,
  inv_e: f32, inv_f: f32, inv_w: f32, uv_mode: u32,
  xmin: f32, ymin: f32, px: f32, _pad: f32,
};
@group(0) @binding(0) var asset: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var<uniform> dr: Draw;
@group(0) @binding(3) var<storage, read> env: array<vec4<f32>>;
@group(0) @binding(4) var old: texture_2d<f32>;
@group(0) @binding(5) var<storage, read> targets: array<f32>;

struct VOut {
  @builtin(position) pos: vec4<f32>,
  @location(0) uv: vec2<f32>,
};
@vertex fn vs_quad(@location(0) clip: vec2<f32>, @location(1) uv: vec2<f32>) -> VOut {
  var o: VOut;
  o.pos = vec4<f32>(clip, 0.0, 1.0);
  o.uv = uv;
  return o;
}

// The 0.15 border window is written here independently on purpose (src/gpu reads nothing of src/conventions).
fn edge_fade(t: f32) -> f32 {
  let e = clamp(min(t, 1.0 - t) / 0.15, 0.0, 1.0);
  return e * e * (3.0 - 2.0 * e);
}

@fragment fn fs_asset(v: VOut) -> @location(0) vec4<f32> {
  // uv: the interpolated varying, or (uv_mode 1) the draw list's inverse mapping of the pixel centre P:
  // local = worldToLocal·P, uv = local / W + 0.5, in float32.
  var uv = v.uv;
  if (dr.uv_mode == 1u) {
    let p = vec2<f32>(dr.xmin + v.pos.x * dr.px, dr.ymin + v.pos.y * dr.px);
    let lx = dr.inv_a * p.x + dr.inv_c * p.y + dr.inv_e;
    let ly = dr.inv_b * p.x + dr.inv_d * p.y + dr.inv_f;
    uv = vec2<f32>(lx / dr.inv_w + 0.5, ly / dr.inv_w + 0.5);
  }
  // Derivatives first, in uniform control flow.
  let size = vec2<f32>(textureDimensions(asset, 0));
  let dx = dpdx(uv) * size;
  let dy = dpdy(uv) * size;
  let rho = max(length(dx), length(dy));
  var lod = log2(rho);
  if (dr.lod_mode == 1u) { lod = dr.lod_list; }
  lod = clamp(lod, 0.0, dr.levels - 1.0);
  let s = textureSampleLevel(asset, samp, uv, lod).r;
  let q = env[dr.env_index];
  var c = q.x;
  if (dr.operand == 1u) { c = q.y; }
  if (dr.operand == 2u || q.w == 0.0) { c = q.z; } // an empty footprint gives the centre value for every query
  if (dr.has_plus == 1u) { c = c + dr.plus; }
  let ks = dr.k * s;
  if (dr.mode == 0u) { return vec4<f32>(ks, 0.0, 0.0, 0.0); }
  if (dr.mode == 1u || dr.mode == 2u) { return vec4<f32>(c + ks, 0.0, 0.0, 0.0); }
  let h = textureLoad(old, vec2<i32>(v.pos.xy), 0).r;
  if (dr.mode == 3u) {
    let ratio = s / dr.s_max;
    let wgt = dr.a * ratio;
    let goal = c + ks;
    let diff = goal - h;
    return vec4<f32>(h + wgt * diff, 0.0, 0.0, 0.0);
  }
  let win = edge_fade(uv.x) * edge_fade(uv.y);
  let t = targets[dr.target_index];
  let ts = t + s;
  let diff = ts - h;
  return vec4<f32>(h + win * diff, 0.0, 0.0, 0.0);
}
`;

export interface AssetDrawParams {
  mode: AssetProgramMode;
  k?: number;
  a?: number;
  sMax?: number;
  /** Existing-terrain operand (max/min/lerp): which component of env[envIndex], plus an optional constant. */
  operand?: 'footprint-min' | 'footprint-max' | 'footprint-centre';
  plus?: number;
  envIndex?: number;
  /** location: index into the support targets buffer. */
  targetIndex?: number;
  lodSource?: LodSource;
  lodList?: number;
  uvSource?: UvSource;
  /** World → asset-local affine (needed for uvSource 'inverse'). */
  worldToLocal?: readonly number[];
}

function blendOf(mode: AssetProgramMode): GPUBlendState | undefined {
  const one = (operation: GPUBlendOperation): GPUBlendComponent => ({ operation, srcFactor: 'one', dstFactor: 'one' });
  if (mode === 'add') return { color: one('add'), alpha: one('add') };
  if (mode === 'max') return { color: one('max'), alpha: one('max') };
  if (mode === 'min') return { color: one('min'), alpha: one('min') };
  return undefined; // read-modify-write: the shader wrote the final value
}

const layouts = new WeakMap<GPUDevice, GPUBindGroupLayout>();
/** The one bind group layout of every asset-draw pipeline (binding 2: the draw's uniform slot, a dynamic offset). */
function drawLayout(ctx: GpuContext): GPUBindGroupLayout {
  let l = layouts.get(ctx.device);
  if (!l) {
    l = ctx.device.createBindGroupLayout({
      entries: [
        { binding: 0, visibility: 0x2, texture: { sampleType: 'float' } },
        { binding: 1, visibility: 0x2, sampler: { type: 'filtering' } },
        { binding: 2, visibility: 0x2, buffer: { type: 'uniform', hasDynamicOffset: true } },
        { binding: 3, visibility: 0x2, buffer: { type: 'read-only-storage' } },
        { binding: 4, visibility: 0x2, texture: { sampleType: 'unfilterable-float' } },
        { binding: 5, visibility: 0x2, buffer: { type: 'read-only-storage' } },
      ],
    });
    layouts.set(ctx.device, l);
  }
  return l;
}

function pipelineFor(ctx: GpuContext, mode: AssetProgramMode): GPURenderPipeline {
  const blendKey = mode === 'lerp' || mode === 'location' ? 'rmw' : mode;
  return cachedPipeline(ctx, `asset:${blendKey}`, () => {
    const module = shaderModule(ctx, ASSET_DRAW_WGSL, 'asset draw');
    return ctx.device.createRenderPipeline({
      label: `asset ${blendKey}`,
      layout: ctx.device.createPipelineLayout({ bindGroupLayouts: [drawLayout(ctx)] }),
      vertex: {
        module,
        entryPoint: 'vs_quad',
        buffers: [
          {
            arrayStride: 16,
            attributes: [
              { shaderLocation: 0, offset: 0, format: 'float32x2' },
              { shaderLocation: 1, offset: 8, format: 'float32x2' },
            ],
          },
        ],
      },
      fragment: { module, entryPoint: 'fs_asset', targets: [{ format: 'r32float', blend: blendOf(mode) }] },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
    });
  });
}

/** The quad's 6 vertices (clip x, clip y, u, v) for an asset square of `worldSize` under localToWorld `m`. */
export function quadVertices(grid: GpuGrid, worldSize: number, m: readonly number[]): Float32Array {
  const h = worldSize / 2;
  const corner = (lx: number, ly: number, u: number, v: number) => {
    const x = m[0] * lx + m[2] * ly + m[4];
    const y = m[1] * lx + m[3] * ly + m[5];
    return [((x - grid.xmin) * 2) / grid.size - 1, 1 - ((y - grid.ymin) * 2) / grid.size, u, v];
  };
  const c00 = corner(-h, -h, 0, 0);
  const c10 = corner(h, -h, 1, 0);
  const c01 = corner(-h, h, 0, 1);
  const c11 = corner(h, h, 1, 1);
  return Float32Array.from([...c00, ...c10, ...c01, ...c10, ...c11, ...c01]);
}

export interface AssetDrawResources {
  /** Envelope results (vec4 per query); a 16-byte dummy when the program has no operand. */
  env: GPUBuffer;
  /** Support targets (f32 per location); a dummy when unused. */
  targets: GPUBuffer;
  /** A copy of the target field for read-modify-write programs (same size as the target). */
  old: GPUTexture;
}

/** One draw of a set: the asset texture, its world size, asset-local → world affine, program. */
export interface AssetDrawSpec {
  asset: GPUTexture;
  worldSize: number;
  localToWorld: readonly number[];
  params: AssetDrawParams;
}

/** The 96 bytes of ASSET_DRAW_WGSL's Draw for one draw. */
function drawUniform(grid: GpuGrid, spec: AssetDrawSpec, out: ArrayBuffer, byteOffset: number): void {
  const p = spec.params;
  const f = new Float32Array(out, byteOffset, 24);
  const i = new Uint32Array(out, byteOffset, 24);
  f[0] = p.k ?? 1;
  f[1] = p.a ?? 0;
  f[2] = p.sMax ?? 1;
  f[3] = p.plus ?? 0;
  i[4] = MODE_ID[p.mode];
  i[5] = p.operand === 'footprint-max' ? 1 : p.operand === 'footprint-centre' ? 2 : 0;
  i[6] = p.envIndex ?? 0;
  i[7] = (p.lodSource ?? 'derivatives') === 'list' ? 1 : 0;
  f[8] = p.lodList ?? 0;
  f[9] = spec.asset.mipLevelCount;
  i[10] = p.targetIndex ?? 0;
  i[11] = p.plus === undefined ? 0 : 1;
  const uvMode = p.uvSource ?? 'inverse';
  if (uvMode === 'inverse') {
    if (!p.worldToLocal || p.worldToLocal.length !== 6) throw new RangeError('asset draw: uvSource inverse needs worldToLocal (6 numbers)');
    f.set(p.worldToLocal, 12);
  }
  f[18] = spec.worldSize;
  i[19] = uvMode === 'inverse' ? 1 : 0;
  f[20] = grid.xmin;
  f[21] = grid.ymin;
  f[22] = grid.size / grid.n;
}

/** Bytes between two draws' uniform slots (WebGPU's default minUniformBufferOffsetAlignment). */
const SLOT = 256;

export interface AssetDrawSet {
  /**
   * Encodes draw k into the target. `before`, when given, is encoded just before the draw outside any render pass
   * (e.g. the draw's footprint envelope). Draws that need nothing before them share one render pass.
   */
  encode(enc: GPUCommandEncoder, k: number, before?: (enc: GPUCommandEncoder) => void): void;
  /** Ends the open render pass: call before encoding other work into `enc` and before enc.finish(). */
  end(): void;
  /** The set's buffers (destroy after the GPU work completes). */
  buffers: GPUBuffer[];
}

/**
 * Prepares a sequence of asset draws into `target`: every quad's vertices in one vertex buffer and every draw's
 * constants in one uniform buffer (a 256-byte slot each, bound with a dynamic offset), written once; one bind group
 * per asset texture. Read-modify-write programs first copy the quad's pixel box of the target into `res.old`, so the
 * fragment reads the field as it stood before that draw. Consecutive draws with nothing between them run in one render
 * pass, in order (WebGPU keeps draw order and blending order within a pass, so the result equals one pass per draw).
 */
export function assetDrawSet(ctx: GpuContext, grid: GpuGrid, specs: readonly AssetDrawSpec[], target: GPUTexture, res: AssetDrawResources): AssetDrawSet {
  const count = specs.length;
  const verts = new Float32Array(Math.max(1, count) * 24);
  const uniforms = new ArrayBuffer(Math.max(1, count) * SLOT);
  specs.forEach((spec, k) => {
    if (!(spec.params.mode in MODE_ID)) throw new RangeError(`asset draw: unknown program mode ${String(spec.params.mode)}`);
    verts.set(quadVertices(grid, spec.worldSize, spec.localToWorld), k * 24);
    drawUniform(grid, spec, uniforms, k * SLOT);
  });
  const vb = ctx.device.createBuffer({ label: 'asset quads', size: verts.byteLength, usage: 0x20 | 0x8 });
  ctx.device.queue.writeBuffer(vb, 0, verts);
  const ub = ctx.device.createBuffer({ label: 'asset draw constants', size: uniforms.byteLength, usage: 0x40 | 0x8 });
  ctx.device.queue.writeBuffer(ub, 0, uniforms);
  const layout = drawLayout(ctx);
  const oldView = res.old.createView();
  const targetView = target.createView();
  const binds = new Map<GPUTexture, GPUBindGroup>();
  const bindFor = (asset: GPUTexture) => {
    let b = binds.get(asset);
    if (!b) {
      b = ctx.device.createBindGroup({
        layout,
        entries: [
          { binding: 0, resource: asset.createView() },
          { binding: 1, resource: ctx.trilinearClamp },
          { binding: 2, resource: { buffer: ub, offset: 0, size: 96 } },
          { binding: 3, resource: { buffer: res.env } },
          { binding: 4, resource: oldView },
          { binding: 5, resource: { buffer: res.targets } },
        ],
      });
      binds.set(asset, b);
    }
    return b;
  };
  let pass: GPURenderPassEncoder | null = null;
  let pipeline: GPURenderPipeline | null = null;
  const end = () => {
    pass?.end();
    pass = null;
    pipeline = null;
  };
  return {
    buffers: [vb, ub],
    end,
    encode(enc, k, before) {
      if (!Number.isInteger(k) || k < 0 || k >= count) throw new RangeError(`asset draw set: draw ${k} outside [0, ${count})`);
      const spec = specs[k];
      const mode = spec.params.mode;
      if (before) {
        end();
        before(enc);
      }
      if (mode === 'lerp' || mode === 'location') {
        // Pixel box of the quad (conservative by one pixel), copied so the shader reads the pre-draw field.
        let x0 = Infinity;
        let x1 = -Infinity;
        let y0 = Infinity;
        let y1 = -Infinity;
        for (let v = 0; v < 6; v++) {
          const fx = ((verts[k * 24 + 4 * v] + 1) / 2) * grid.n;
          const fy = ((1 - verts[k * 24 + 4 * v + 1]) / 2) * grid.n;
          x0 = Math.min(x0, fx);
          x1 = Math.max(x1, fx);
          y0 = Math.min(y0, fy);
          y1 = Math.max(y1, fy);
        }
        const i0 = Math.max(0, Math.floor(x0) - 1);
        const i1 = Math.min(grid.n, Math.ceil(x1) + 1);
        const j0 = Math.max(0, Math.floor(y0) - 1);
        const j1 = Math.min(grid.n, Math.ceil(y1) + 1);
        if (i1 <= i0 || j1 <= j0) return;
        end();
        enc.copyTextureToTexture(
          { texture: target, origin: { x: i0, y: j0 } },
          { texture: res.old, origin: { x: i0, y: j0 } },
          { width: i1 - i0, height: j1 - j0 },
        );
      }
      if (!pass) {
        pass = enc.beginRenderPass({ colorAttachments: [{ view: targetView, loadOp: 'load', storeOp: 'store' }] });
        pass.setVertexBuffer(0, vb);
      }
      const p = pipelineFor(ctx, mode);
      if (p !== pipeline) {
        pass.setPipeline(p);
        pipeline = p;
      }
      pass.setBindGroup(0, bindFor(spec.asset), [k * SLOT]);
      pass.draw(6, 1, k * 6, 0);
    },
  };
}

/**
 * Encodes one draw into `target` (a set of one; see assetDrawSet). Returns the buffers to destroy after the work
 * completes.
 */
export function encodeAssetDraw(
  ctx: GpuContext,
  enc: GPUCommandEncoder,
  grid: GpuGrid,
  asset: GPUTexture,
  worldSize: number,
  localToWorld: readonly number[],
  p: AssetDrawParams,
  target: GPUTexture,
  res: AssetDrawResources,
): GPUBuffer[] {
  const set = assetDrawSet(ctx, grid, [{ asset, worldSize, localToWorld, params: p }], target, res);
  set.encode(enc, 0);
  set.end();
  return set.buffers;
}

/** An r32float texture holding a full mip chain (level k has size max(1, ⌊n/2^k⌋)), level 0 first. */
export function assetTexture(ctx: GpuContext, levels: readonly Float32Array[], sizes: readonly number[], label: string): GPUTexture {
  if (levels.length !== sizes.length || levels.length === 0) throw new RangeError(`asset ${label}: ${levels.length} levels for ${sizes.length} sizes`);
  sizes.forEach((s, k) => {
    const want = Math.max(1, Math.floor(sizes[0] / 2 ** k));
    if (s !== want) throw new RangeError(`asset ${label}: level ${k} is ${s}², WebGPU's mip chain needs ${want}²`);
    if (levels[k].length !== s * s) throw new RangeError(`asset ${label}: level ${k} holds ${levels[k].length} values, expected ${s * s}`);
  });
  const tex = ctx.device.createTexture({
    label,
    size: { width: sizes[0], height: sizes[0] },
    format: 'r32float',
    mipLevelCount: levels.length,
    usage: 0x4 | 0x2 /* TEXTURE_BINDING | COPY_DST */,
  });
  levels.forEach((l, k) =>
    ctx.device.queue.writeTexture(
      { texture: tex, mipLevel: k },
      l,
      { bytesPerRow: sizes[k] * 4, rowsPerImage: sizes[k] },
      { width: sizes[k], height: sizes[k] },
    ),
  );
  return tex;
}
