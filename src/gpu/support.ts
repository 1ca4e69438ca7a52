/**
 * GPU passes: location support (article: "Location Support Establishes Targets for Local Ground", "How Parent and
 * Child Heights Interact", "Transition Width and Height Strength Are Different Parameters"), as the draw list's
 * support section defines it.
 *
 * Inputs: the base field, the support locations (shapes, children, offsets, floors), coefficients a and b.
 * Outputs: a targets buffer (one f32 per location, in list order: the operand of location texture draws) and the
 *   field after every shape is applied in order.
 * Steps, all on the GPU:
 *  1. envelopes (envelope.ts): one masked reduction per shape over the base field (pixels with centre in the square
 *     shape ± boundRadius and signed distance ≤ 0);
 *  2. cs_targets (one thread, locations in list order, float32): hmin/hmax = min/max over the location's shapes, or
 *     the first shape's centre pixel when no pixel counted; reference = (hmin + hmax)/2; weighted = (reference +
 *     Σ w·reference_child)/(1 + Σ w), sums left to right; target = weighted + offset, raised to the floor when
 *     below it; per shape t = min(log(1 + a·R), 1), relief = min((max(hmax, T) − hmin)/b, 1), k = (1 − t) + t·relief,
 *     width = transitionWidth·k (log = the GPU's natural logarithm) [D formulas, G precision];
 *  3. one read-modify-write draw per shape in order: a quad over the square shape ± (boundRadius + transitionWidth)
 *     (k ≤ 1, so it contains every pixel the rule can touch); the fragment takes d = signed distance, w = 1 for
 *     d ≤ 0, 1 − s²(3 − 2s) with s = d/width for 0 < d < width, discards otherwise, and writes
 *     h + (strength·w)·(T − h).
 */
import { cachedPipeline, shaderModule, type GpuContext, type GpuGrid } from './context.js';
import type { SupportShape } from '../drawlist/types.js';
import { envelopeRunner, pixelOf, pixelSpan, type EnvelopeQuery, type EnvelopeRunner } from './envelope.js';

/** A support shape exactly as the draw list states it (the list's type, so the two cannot drift). */
export type GpuSupportShape = SupportShape;

export interface GpuSupportLocation {
  shapes: GpuSupportShape[];
  /** Children by position in the locations list (not instance ids), with positive weights. */
  children: { index: number; weight: number }[];
  offset: number;
  floor: number | null;
}

export const SUPPORT_TARGETS_WGSL = /* wgsl */ `
struct Loc { first_shape: u32, shape_count: u32, first_child: u32, child_count: u32, offset: f32, floor: f32, has_floor: u32, _p: u32 };
struct Child { index: u32, weight: f32 };
struct Shape { bound_radius: f32, transition_width: f32, _a: f32, _b: f32 };
struct Coef { a: f32, b: f32, count: u32, _p: u32 };
@group(0) @binding(0) var<storage, read> locs: array<Loc>;
@group(0) @binding(1) var<storage, read> children: array<Child>;
@group(0) @binding(2) var<storage, read> shapes: array<Shape>;
@group(0) @binding(3) var<storage, read> env: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> targets: array<f32>;
@group(0) @binding(5) var<storage, read_write> widths: array<f32>;
@group(0) @binding(6) var<storage, read_write> scratch: array<vec4<f32>>; // per location: hmin, hmax, reference, _
@group(0) @binding(7) var<uniform> coef: Coef;

@compute @workgroup_size(1) fn cs_targets() {
  for (var l = 0u; l < coef.count; l = l + 1u) {
    let L = locs[l];
    var lo = 3.4e38;
    var hi = -3.4e38;
    var n = 0.0;
    for (var s = 0u; s < L.shape_count; s = s + 1u) {
      let e = env[L.first_shape + s];
      lo = min(lo, e.x);
      hi = max(hi, e.y);
      n = n + e.w;
    }
    if (n == 0.0) {
      let c = env[L.first_shape].z;
      lo = c;
      hi = c;
    }
    let sum = lo + hi;
    scratch[l] = vec4<f32>(lo, hi, sum * 0.5, 0.0);
  }
  for (var l = 0u; l < coef.count; l = l + 1u) {
    let L = locs[l];
    var num = scratch[l].z;
    var den = 1.0;
    for (var c = 0u; c < L.child_count; c = c + 1u) {
      let ch = children[L.first_child + c];
      let wr = ch.weight * scratch[ch.index].z;
      num = num + wr;
      den = den + ch.weight;
    }
    let weighted = num / den;
    var t = weighted + L.offset;
    if (L.has_floor == 1u && t < L.floor) { t = L.floor; }
    targets[l] = t;
    let hmin = scratch[l].x;
    let hmax = scratch[l].y;
    for (var s = 0u; s < L.shape_count; s = s + 1u) {
      let sh = shapes[L.first_shape + s];
      let ar = coef.a * sh.bound_radius;
      let tt = min(log(1.0 + ar), 1.0);
      let rel = min((max(hmax, t) - hmin) / coef.b, 1.0);
      let k = (1.0 - tt) + tt * rel;
      widths[L.first_shape + s] = sh.transition_width * k;
    }
  }
}
`;

export const SUPPORT_DRAW_WGSL = /* wgsl */ `
struct S { cx: f32, cy: f32, radius: f32, hx: f32, hy: f32, angle: f32, strength: f32, kind: u32, shape_index: u32, loc_index: u32, xmin: f32, ymin: f32, px: f32, _a: f32, _b: f32, _c: f32 };
@group(0) @binding(0) var<uniform> sp: S;
@group(0) @binding(1) var<storage, read> targets: array<f32>;
@group(0) @binding(2) var<storage, read> widths: array<f32>;
@group(0) @binding(3) var old: texture_2d<f32>;

@vertex fn vs_box(@location(0) clip: vec2<f32>) -> @builtin(position) vec4<f32> {
  return vec4<f32>(clip, 0.0, 1.0);
}

fn signed_distance(p: vec2<f32>) -> f32 {
  let d = p - vec2<f32>(sp.cx, sp.cy);
  if (sp.kind == 1u) { return length(d) - sp.radius; }
  let c = cos(sp.angle);
  let s = sin(sp.angle);
  let l = vec2<f32>(c * d.x + s * d.y, -s * d.x + c * d.y);
  let e = abs(l) - vec2<f32>(sp.hx, sp.hy);
  return length(max(e, vec2<f32>(0.0))) + min(max(e.x, e.y), 0.0);
}

@fragment fn fs_support(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
  let p = vec2<f32>(sp.xmin + pos.x * sp.px, sp.ymin + pos.y * sp.px);
  let d = signed_distance(p);
  let width = widths[sp.shape_index];
  var w = 1.0;
  if (d > 0.0) {
    if (d >= width) { discard; }
    let s = d / width;
    w = 1.0 - s * s * (3.0 - 2.0 * s);
  }
  let h = textureLoad(old, vec2<i32>(pos.xy), 0).r;
  let T = targets[sp.loc_index];
  let sw = sp.strength * w;
  let diff = T - h;
  return vec4<f32>(h + sw * diff, 0.0, 0.0, 0.0);
}
`;

function storage(ctx: GpuContext, data: ArrayBuffer | ArrayBufferView, label: string): GPUBuffer {
  const bytes = Math.max(16, Math.ceil(data.byteLength / 16) * 16);
  const b = ctx.device.createBuffer({ label, size: bytes, usage: 0x80 | 0x8 | 0x4 });
  if (data.byteLength) ctx.device.queue.writeBuffer(b, 0, data instanceof ArrayBuffer ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return b;
}

export interface SupportRun {
  targets: GPUBuffer;
  widths: GPUBuffer;
  envelopes: EnvelopeRunner;
  buffers: GPUBuffer[];
}

/**
 * Encodes steps 1–3 on `field` (in place; `old` is a same-size scratch texture). The returned buffers hold the
 * targets (f32 per location) for the location texture draws; destroy them after the work completes.
 */
export function encodeSupport(
  ctx: GpuContext,
  enc: GPUCommandEncoder,
  grid: GpuGrid,
  locations: readonly GpuSupportLocation[],
  a: number,
  b: number,
  field: GPUTexture,
  old: GPUTexture,
): SupportRun {
  const px = grid.size / grid.n;
  const queries: EnvelopeQuery[] = [];
  const locBuf = new ArrayBuffer(Math.max(1, locations.length) * 32);
  const childList: number[] = [];
  const shapeList: number[] = [];
  locations.forEach((L, l) => {
    if (L.shapes.length === 0) throw new RangeError(`support: location ${l} has no shapes`);
    const firstShape = queries.length;
    const [ci, cj] = pixelOf(L.shapes[0].x, L.shapes[0].y, grid);
    for (const s of L.shapes) {
      const [i0, i1] = pixelSpan(s.x - s.boundRadius, s.x + s.boundRadius, grid.xmin, px, grid.n);
      const [j0, j1] = pixelSpan(s.y - s.boundRadius, s.y + s.boundRadius, grid.ymin, px, grid.n);
      const shape =
        s.kind === 'circle'
          ? { kind: 'circle' as const, x: s.x, y: s.y, radius: s.radius }
          : { kind: 'rect' as const, x: s.x, y: s.y, halfSize: s.halfSize, angle: s.angle };
      queries.push({ i0, i1, j0, j1, ci, cj, shape });
      shapeList.push(s.boundRadius, s.transitionWidth, 0, 0);
    }
    const u = new Uint32Array(locBuf, l * 32, 8);
    const f = new Float32Array(locBuf, l * 32, 8);
    u[0] = firstShape;
    u[1] = L.shapes.length;
    u[2] = childList.length / 2;
    u[3] = L.children.length;
    f[4] = L.offset;
    f[5] = L.floor ?? 0;
    u[6] = L.floor === null ? 0 : 1;
    for (const c of L.children) {
      if (!Number.isInteger(c.index) || c.index < 0 || c.index >= locations.length)
        throw new RangeError(`support: location ${l} names child ${c.index}, outside [0, ${locations.length})`);
      childList.push(c.index, c.weight);
    }
  });
  const childBuf = new ArrayBuffer(Math.max(1, childList.length / 2) * 8);
  for (let k = 0; k < childList.length / 2; k++) {
    new Uint32Array(childBuf, k * 8, 1)[0] = childList[2 * k];
    new Float32Array(childBuf, k * 8 + 4, 1)[0] = childList[2 * k + 1];
  }
  const envelopes = envelopeRunner(ctx, grid, queries);
  envelopes.encode(enc, field, 0, queries.length);
  const locs = storage(ctx, locBuf, 'support locations');
  const children = storage(ctx, childBuf, 'support children');
  const shapes = storage(ctx, Float32Array.from(shapeList), 'support shapes');
  const targets = storage(ctx, new Float32Array(Math.max(1, locations.length)), 'support targets');
  const widths = storage(ctx, new Float32Array(Math.max(1, queries.length)), 'support widths');
  const scratch = storage(ctx, new Float32Array(Math.max(1, locations.length) * 4), 'support scratch');
  const coef = ctx.device.createBuffer({ size: 16, usage: 0x40 | 0x8 });
  const cb = new ArrayBuffer(16);
  new Float32Array(cb, 0, 2).set([a, b]);
  new Uint32Array(cb, 8, 1)[0] = locations.length;
  ctx.device.queue.writeBuffer(coef, 0, cb);
  const buffers = [locs, children, shapes, scratch, coef];
  if (locations.length) {
    const tp = cachedPipeline(ctx, 'support-targets', () =>
      ctx.device.createComputePipeline({
        label: 'support targets',
        layout: 'auto',
        compute: { module: shaderModule(ctx, SUPPORT_TARGETS_WGSL, 'support targets'), entryPoint: 'cs_targets' },
      }),
    );
    const bind = ctx.device.createBindGroup({
      layout: tp.getBindGroupLayout(0),
      entries: [locs, children, shapes, envelopes.result, targets, widths, scratch]
        .map((buffer, binding) => ({ binding, resource: { buffer } }))
        .concat([{ binding: 7, resource: { buffer: coef } }]),
    });
    const pass = enc.beginComputePass();
    pass.setPipeline(tp);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(1);
    pass.end();
  }
  // Step 3: shapes in order.
  const dp = cachedPipeline(ctx, 'support-draw', () => {
    const module = shaderModule(ctx, SUPPORT_DRAW_WGSL, 'support draw');
    return ctx.device.createRenderPipeline({
      label: 'support draw',
      layout: 'auto',
      vertex: { module, entryPoint: 'vs_box', buffers: [{ arrayStride: 8, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x2' }] }] },
      fragment: { module, entryPoint: 'fs_support', targets: [{ format: 'r32float' }] },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
    });
  });
  let q = 0;
  locations.forEach((L, l) => {
    for (const s of L.shapes) {
      const r = s.boundRadius + s.transitionWidth;
      const [i0, i1] = pixelSpan(s.x - r, s.x + r, grid.xmin, px, grid.n);
      const [j0, j1] = pixelSpan(s.y - r, s.y + r, grid.ymin, px, grid.n);
      const shapeIndex = q++;
      if (i1 < i0 || j1 < j0) continue;
      // The quad spans exactly the pixel box [i0, i1] × [j0, j1] (edges on pixel borders: no centre on an edge).
      const cx = (i: number) => (2 * i) / grid.n - 1;
      const cy = (j: number) => 1 - (2 * j) / grid.n;
      const v = Float32Array.from([cx(i0), cy(j0), cx(i1 + 1), cy(j0), cx(i0), cy(j1 + 1), cx(i1 + 1), cy(j0), cx(i1 + 1), cy(j1 + 1), cx(i0), cy(j1 + 1)]);
      const vb = ctx.device.createBuffer({ size: v.byteLength, usage: 0x20 | 0x8 });
      ctx.device.queue.writeBuffer(vb, 0, v);
      const u = new ArrayBuffer(64);
      const f = new Float32Array(u);
      const w = new Uint32Array(u);
      f.set([s.x, s.y, s.radius, s.halfSize[0], s.halfSize[1], s.angle, s.strength]);
      w[7] = s.kind === 'circle' ? 1 : 2;
      w[8] = shapeIndex;
      w[9] = l;
      f[10] = grid.xmin;
      f[11] = grid.ymin;
      f[12] = px;
      const ub = ctx.device.createBuffer({ size: 64, usage: 0x40 | 0x8 });
      ctx.device.queue.writeBuffer(ub, 0, u);
      buffers.push(vb, ub);
      enc.copyTextureToTexture(
        { texture: field, origin: { x: i0, y: j0 } },
        { texture: old, origin: { x: i0, y: j0 } },
        { width: i1 - i0 + 1, height: j1 - j0 + 1 },
      );
      const bind = ctx.device.createBindGroup({
        layout: dp.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: ub } },
          { binding: 1, resource: { buffer: targets } },
          { binding: 2, resource: { buffer: widths } },
          { binding: 3, resource: old.createView() },
        ],
      });
      const pass = enc.beginRenderPass({ colorAttachments: [{ view: field.createView(), loadOp: 'load', storeOp: 'store' }] });
      pass.setPipeline(dp);
      pass.setBindGroup(0, bind);
      pass.setVertexBuffer(0, vb);
      pass.draw(6);
      pass.end();
    }
  });
  return { targets, widths, envelopes, buffers };
}
