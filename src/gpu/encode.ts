/**
 * GPU pass: float heights → UNORM16 codes in a compute shader (article: "Encoding a Deliverable R16 Heightmap";
 * shared/notes/gpu-rules.md, Float → UNORM16). WebGPU's r16unorm render target needs `texture-formats-tier1`, which
 * SwiftShader does not offer, so the conversion the original left to the render-target format runs in WGSL here.
 *
 * Inputs: an r32float texture (width even), the encoding range [min, max], the rule.
 * Outputs: codes, row-major, row 0 = texture row 0 (a Uint16Array, or written into the caller's).
 * Rules:
 *  - [D] range map u = clamp((H − min) × (1/(max − min)), 0, 1) in float32 (1/(max − min) formed on the host in
 *    float64 and rounded once to float32; H − min and the product are float32 operations in the shader);
 *  - [G] 'd3d': NaN → 0; c = u × 65535; c = c + 0.5; truncate — each step float32 (Direct3D's FLOAT → UNORM);
 *  - [G] 'pack2x16unorm': WGSL's pack2x16unorm, which computes round(clamp(u, 0, 1) × 65535) with round() = half to
 *    even; NaN → 0 is applied before it too (WGSL leaves clamp(NaN) indeterminate, and 0 is the D3D answer).
 * NaN is detected from the bit pattern (exponent all ones, mantissa non-zero), not with x != x, which a compiler may
 * assume false. Whether the driver fuses c × 65535 + 0.5 into one rounding is measured by the half-way tests, not
 * assumed.
 */
import { cachedPipeline, readBuffer, shaderModule, type GpuContext } from './context.js';

export type EncodeRule = 'd3d' | 'pack2x16unorm';
export const ENCODE_RULES: readonly EncodeRule[] = ['d3d', 'pack2x16unorm'];

export const ENCODE_WGSL = /* wgsl */ `
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> codes: array<u32>;
struct Params { hmin: f32, inv_range: f32, rule: u32, width: u32 };
@group(0) @binding(2) var<uniform> p: Params;

fn is_nan(x: f32) -> bool {
  let b = bitcast<u32>(x);
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u;
}

fn encode(h: f32) -> u32 {
  if (is_nan(h)) { return 0u; }
  let d = h - p.hmin;
  let m = d * p.inv_range;
  if (is_nan(m)) { return 0u; }
  let u = clamp(m, 0.0, 1.0);
  if (p.rule == 0u) {
    // 65535 (the largest R16 code) is written here independently on purpose: src/gpu reads nothing of src/conventions.
    let c = u * 65535.0;
    let c_half = c + 0.5;
    return u32(c_half);
  }
  return pack2x16unorm(vec2<f32>(u, 0.0)) & 0xffffu;
}

@compute @workgroup_size(8, 8) fn cs_encode(@builtin(global_invocation_id) id: vec3<u32>) {
  let dims = textureDimensions(src);
  let x = id.x * 2u;
  if (x >= dims.x || id.y >= dims.y) { return; }
  let a = encode(textureLoad(src, vec2<u32>(x, id.y), 0).r);
  let b = encode(textureLoad(src, vec2<u32>(x + 1u, id.y), 0).r);
  // Little-endian pairs: read back as 16-bit codes in pixel order.
  codes[(id.y * dims.x + x) / 2u] = a | (b << 16u);
}
`;

export interface EncodeRange {
  min: number;
  max: number;
}

function checkRange(r: EncodeRange): void {
  if (!Number.isFinite(r.min) || !Number.isFinite(r.max) || !(r.max > r.min)) {
    throw new RangeError(`encode: expected a finite range with max > min, got min ${r.min}, max ${r.max}`);
  }
}

/** Encodes the codes of `src` into a new storage buffer (width × height / 2 u32) and returns it. */
export function encodeUnorm16(
  ctx: GpuContext,
  enc: GPUCommandEncoder,
  src: GPUTexture,
  range: EncodeRange,
  rule: EncodeRule,
): { codes: GPUBuffer; params: GPUBuffer } {
  checkRange(range);
  if (!ENCODE_RULES.includes(rule)) throw new RangeError(`encode: rule must be one of ${ENCODE_RULES.join(', ')}, got ${String(rule)}`);
  if (src.width % 2 !== 0) throw new RangeError(`encode: the width must be even (two codes per 32-bit word), got ${src.width}`);
  const pipeline = cachedPipeline(ctx, 'encode', () =>
    ctx.device.createComputePipeline({
      label: 'encode',
      layout: 'auto',
      compute: { module: shaderModule(ctx, ENCODE_WGSL, 'encode'), entryPoint: 'cs_encode' },
    }),
  );
  const bytes = src.width * src.height * 2;
  const codes = ctx.device.createBuffer({ label: 'codes', size: Math.ceil(bytes / 4) * 4, usage: 0x80 | 0x4 /* STORAGE | COPY_SRC */ });
  const pb = new ArrayBuffer(16);
  new Float32Array(pb, 0, 2).set([range.min, 1 / (range.max - range.min)]);
  new Uint32Array(pb, 8, 2).set([rule === 'd3d' ? 0 : 1, src.width]);
  const params = ctx.device.createBuffer({ size: 16, usage: 0x40 | 0x8 });
  ctx.device.queue.writeBuffer(params, 0, pb);
  const bind = ctx.device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: src.createView() },
      { binding: 1, resource: { buffer: codes } },
      { binding: 2, resource: { buffer: params } },
    ],
  });
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(Math.ceil(src.width / 2 / 8), Math.ceil(src.height / 8));
  pass.end();
  return { codes, params };
}

/** Encodes and reads back: codes of `src` under `rule`, row 0 = texture row 0. */
export async function encodeField(ctx: GpuContext, src: GPUTexture, range: EncodeRange, rule: EncodeRule, out?: Uint16Array): Promise<Uint16Array> {
  const enc = ctx.device.createCommandEncoder();
  const { codes, params } = encodeUnorm16(ctx, enc, src, range, rule);
  ctx.device.queue.submit([enc.finish()]);
  const n = src.width * src.height;
  const bytes = await readBuffer(ctx, codes, Math.ceil((n * 2) / 4) * 4);
  codes.destroy();
  params.destroy();
  const result = out ?? new Uint16Array(n);
  if (result.length !== n) throw new RangeError(`encode: output holds ${result.length} codes, expected ${n}`);
  result.set(new Uint16Array(bytes, 0, n));
  return result;
}
