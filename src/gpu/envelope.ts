/**
 * GPU compute: existing-terrain queries (footprint envelopes and centre samples) as workgroup reductions over the
 * current field (article: "Location Support Establishes Targets for Local Ground" — upper and lower envelopes over the
 * whole domain; natural stamps' existing-terrain inputs).
 *
 * Inputs: the field texture (r32float), a list of queries: an inclusive pixel rectangle [i0, i1] × [j0, j1], a
 *   centre pixel, an optional shape mask (circle or rotated rectangle: only pixel centres with signed distance ≤ 0
 *   count), and the grid (for pixel-centre world positions).
 * Outputs: a storage buffer with one vec4 per query: (min, max, centre value, count of pixels reduced). An empty
 *   rectangle or mask gives min = +inf-like 3.4e38, max = −3.4e38 and count 0: the caller applies its fallback.
 * Accumulator and method: per thread a running min/max over a strided subset, then a tree reduction in workgroup
 *   memory — min and max are exact and order-free, so the result does not depend on the thread layout. The count is
 *   an exact u32 sum.
 * Pixel-centre world position (x, y) = (xmin + (i + 0.5)·px, ymin + (j + 0.5)·px) in float32; distances use the
 *   GPU's sqrt, cos and sin (float32, the driver's precision) [G].
 */
import { cachedPipeline, readBuffer, shaderModule, type GpuContext, type GpuGrid } from './context.js';

export const ENVELOPE_WGSL = /* wgsl */ `
struct Query {
  rect: vec4<i32>,      // i0, i1, j0, j1 (inclusive; i1 < i0 means empty)
  centre: vec4<i32>,    // ci, cj, shape kind (0 none, 1 circle, 2 rect), unused
  shape: vec4<f32>,     // cx, cy, radius or half size x, half size y
  shape2: vec4<f32>,    // angle, unused…
};
struct Grid { xmin: f32, ymin: f32, px: f32, n: f32 };
@group(0) @binding(0) var field: texture_2d<f32>;
@group(0) @binding(1) var<storage, read> queries: array<Query>;
@group(0) @binding(2) var<storage, read_write> result: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> grid: Grid;
@group(0) @binding(4) var<uniform> first: vec4<u32>;

const BIG: f32 = 3.4e38;
var<workgroup> wmin: array<f32, 256>;
var<workgroup> wmax: array<f32, 256>;
var<workgroup> wcount: array<u32, 256>;

fn signed_distance(q: Query, i: i32, j: i32) -> f32 {
  let p = vec2<f32>(grid.xmin + (f32(i) + 0.5) * grid.px, grid.ymin + (f32(j) + 0.5) * grid.px);
  let d = p - q.shape.xy;
  if (q.centre.z == 1) {
    return length(d) - q.shape.z;
  }
  let c = cos(q.shape2.x);
  let s = sin(q.shape2.x);
  let l = vec2<f32>(c * d.x + s * d.y, -s * d.x + c * d.y);
  let e = abs(l) - q.shape.zw;
  return length(max(e, vec2<f32>(0.0))) + min(max(e.x, e.y), 0.0);
}

@compute @workgroup_size(256) fn cs_envelope(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
  let qi = wg.x + first.x;
  let q = queries[qi];
  let w = q.rect.y - q.rect.x + 1;
  let h = q.rect.w - q.rect.z + 1;
  var lo = BIG;
  var hi = -BIG;
  var count = 0u;
  if (w > 0 && h > 0) {
    let total = u32(w) * u32(h);
    for (var k = t; k < total; k = k + 256u) {
      let i = q.rect.x + i32(k % u32(w));
      let j = q.rect.z + i32(k / u32(w));
      if (q.centre.z != 0 && signed_distance(q, i, j) > 0.0) { continue; }
      let v = textureLoad(field, vec2<i32>(i, j), 0).r;
      lo = min(lo, v);
      hi = max(hi, v);
      count = count + 1u;
    }
  }
  wmin[t] = lo;
  wmax[t] = hi;
  wcount[t] = count;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s = s >> 1u) {
    if (t < s) {
      wmin[t] = min(wmin[t], wmin[t + s]);
      wmax[t] = max(wmax[t], wmax[t + s]);
      wcount[t] = wcount[t] + wcount[t + s];
    }
    workgroupBarrier();
  }
  if (t == 0u) {
    let c = textureLoad(field, vec2<i32>(q.centre.x, q.centre.y), 0).r;
    result[qi] = vec4<f32>(wmin[0], wmax[0], c, f32(wcount[0]));
  }
}
`;

export interface EnvelopeQuery {
  /** Inclusive pixel ranges; i1 < i0 or j1 < j0 is an empty footprint. */
  i0: number;
  i1: number;
  j0: number;
  j1: number;
  /** Pixel of the centre sample (already clamped to the grid). */
  ci: number;
  cj: number;
  shape?: { kind: 'circle'; x: number; y: number; radius: number } | { kind: 'rect'; x: number; y: number; halfSize: [number, number]; angle: number };
}

/** Bytes per query record in the queries buffer. */
export const QUERY_BYTES = 64;

/** Packs queries into the layout of ENVELOPE_WGSL's Query. */
export function packQueries(qs: readonly EnvelopeQuery[]): ArrayBuffer {
  const buf = new ArrayBuffer(Math.max(1, qs.length) * QUERY_BYTES);
  qs.forEach((q, k) => {
    const i = new Int32Array(buf, k * QUERY_BYTES, 8);
    const f = new Float32Array(buf, k * QUERY_BYTES + 32, 8);
    i.set([q.i0, q.i1, q.j0, q.j1, q.ci, q.cj, q.shape ? (q.shape.kind === 'circle' ? 1 : 2) : 0, 0]);
    if (q.shape?.kind === 'circle') f.set([q.shape.x, q.shape.y, q.shape.radius, 0, 0, 0, 0, 0]);
    else if (q.shape?.kind === 'rect') f.set([q.shape.x, q.shape.y, q.shape.halfSize[0], q.shape.halfSize[1], q.shape.angle, 0, 0, 0]);
  });
  return buf;
}

/** Pixel range of world interval [a, b] (pixel centres inside, clamped to the grid): the draw list's rule. */
export function pixelSpan(a: number, b: number, origin: number, px: number, n: number): [number, number] {
  return [Math.max(0, Math.ceil((a - origin) / px - 0.5)), Math.min(n - 1, Math.floor((b - origin) / px - 0.5))];
}

/** The pixel holding world (x, y) (floor of the continuous pixel-edge coordinate), clamped to the grid. */
export function pixelOf(x: number, y: number, g: GpuGrid): [number, number] {
  const px = g.size / g.n;
  const cl = (v: number) => Math.min(g.n - 1, Math.max(0, v));
  return [cl(Math.floor((x - g.xmin) / px)), cl(Math.floor((y - g.ymin) / px))];
}

export interface EnvelopeRunner {
  queries: GPUBuffer;
  result: GPUBuffer;
  /** Encodes the reduction of queries [first, first + count) over `field`. */
  encode(enc: GPUCommandEncoder, field: GPUTexture, first: number, count: number): void;
  destroy(): void;
}

/** Bytes between two `first` slots (WebGPU's default minUniformBufferOffsetAlignment). */
const SLOT = 256;

const layouts = new WeakMap<GPUDevice, GPUBindGroupLayout>();
/** The envelope pipeline's bind group layout: binding 4 (`first`) takes a dynamic offset, one slot per first query. */
function envelopeLayout(ctx: GpuContext): GPUBindGroupLayout {
  let l = layouts.get(ctx.device);
  if (!l) {
    l = ctx.device.createBindGroupLayout({
      entries: [
        { binding: 0, visibility: 0x4, texture: { sampleType: 'unfilterable-float' } },
        { binding: 1, visibility: 0x4, buffer: { type: 'read-only-storage' } },
        { binding: 2, visibility: 0x4, buffer: { type: 'storage' } },
        { binding: 3, visibility: 0x4, buffer: { type: 'uniform' } },
        { binding: 4, visibility: 0x4, buffer: { type: 'uniform', hasDynamicOffset: true } },
      ],
    });
    layouts.set(ctx.device, l);
  }
  return l;
}

/**
 * Uploads `qs` once; each encode() reduces a slice of them on the field as it stands at that point of the encoder.
 * The slice's first index is a dynamic offset into one buffer holding every possible first (0 … count − 1, a slot
 * each), so encodes allocate nothing; the bind group is made once per field texture.
 */
export function envelopeRunner(ctx: GpuContext, grid: GpuGrid, qs: readonly EnvelopeQuery[]): EnvelopeRunner {
  const layout = envelopeLayout(ctx);
  const pipeline = cachedPipeline(ctx, 'envelope', () =>
    ctx.device.createComputePipeline({
      label: 'envelope',
      layout: ctx.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module: shaderModule(ctx, ENVELOPE_WGSL, 'envelope'), entryPoint: 'cs_envelope' },
    }),
  );
  const packed = packQueries(qs);
  const queries = ctx.device.createBuffer({ label: 'queries', size: packed.byteLength, usage: 0x80 | 0x8 });
  ctx.device.queue.writeBuffer(queries, 0, packed);
  const result = ctx.device.createBuffer({ label: 'envelopes', size: Math.max(1, qs.length) * 16, usage: 0x80 | 0x4 | 0x8 });
  const gridBuf = ctx.device.createBuffer({ size: 16, usage: 0x40 | 0x8 });
  ctx.device.queue.writeBuffer(gridBuf, 0, new Float32Array([grid.xmin, grid.ymin, grid.size / grid.n, grid.n]));
  const firstsData = new Uint32Array((Math.max(1, qs.length) * SLOT) / 4);
  for (let k = 0; k < qs.length; k++) firstsData[(k * SLOT) / 4] = k;
  const firsts = ctx.device.createBuffer({ label: 'envelope firsts', size: firstsData.byteLength, usage: 0x40 | 0x8 });
  ctx.device.queue.writeBuffer(firsts, 0, firstsData);
  const binds = new Map<GPUTexture, GPUBindGroup>();
  return {
    queries,
    result,
    encode(enc, field, first, count) {
      if (count <= 0) return;
      if (first < 0 || first + count > qs.length) throw new RangeError(`envelope: queries [${first}, ${first + count}) outside [0, ${qs.length})`);
      let bind = binds.get(field);
      if (!bind) {
        bind = ctx.device.createBindGroup({
          layout,
          entries: [
            { binding: 0, resource: field.createView() },
            { binding: 1, resource: { buffer: queries } },
            { binding: 2, resource: { buffer: result } },
            { binding: 3, resource: { buffer: gridBuf } },
            { binding: 4, resource: { buffer: firsts, offset: 0, size: 16 } },
          ],
        });
        binds.set(field, bind);
      }
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bind, [first * SLOT]);
      pass.dispatchWorkgroups(count);
      pass.end();
    },
    destroy() {
      for (const b of [queries, result, gridBuf, firsts]) b.destroy();
    },
  };
}

/** Reads the first `count` results back: 4 floats per query (min, max, centre, count). */
export async function readEnvelopes(ctx: GpuContext, runner: EnvelopeRunner, count: number): Promise<Float32Array> {
  return new Float32Array(await readBuffer(ctx, runner.result, Math.max(1, count) * 16));
}
