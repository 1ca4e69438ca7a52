/**
 * GPU pass: the outer radial blend (article: "Radial Blending Connects the Interior to the Surroundings", "What the
 * Transition Does at Its Ends and Midpoint", "A Circular Transition inside a Square Data Domain").
 *
 * Inputs: the inner field, the outer input (a texture of the same size, or a constant), the grid, the centre C and
 *   the band [r0, r1].
 * Outputs: the blended field in the caller's target (a different texture from the inner field).
 * Rules [D]: r = length(P − C) at the pixel centre P; t = clamp((r − r0)/(r1 − r0), 0, 1); α = t·t·(3 − 2t);
 *   H = (1 − α)·H_inner + α·H_outer, in float32 in that order. P = (xmin + (i + 0.5)·px, ymin + (j + 0.5)·px) is formed
 *   in float32 from the fragment position; length() is the GPU's (its sqrt precision is the driver's) [G].
 */
import { cachedPipeline, FULLSCREEN_VS, shaderModule, type GpuContext, type GpuGrid } from './context.js';

export const OUTER_WGSL = /* wgsl */ `
${FULLSCREEN_VS}
struct Params { xmin: f32, ymin: f32, px: f32, r0: f32, cx: f32, cy: f32, r1: f32, outer_const: f32, use_tex: u32, _a: u32, _b: u32, _c: u32 };
@group(0) @binding(0) var inner: texture_2d<f32>;
@group(0) @binding(1) var outer_tex: texture_2d<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@fragment fn fs_outer(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
  let ij = vec2<i32>(pos.xy);
  let world = vec2<f32>(p.xmin + pos.x * p.px, p.ymin + pos.y * p.px);
  let r = length(world - vec2<f32>(p.cx, p.cy));
  let t = clamp((r - p.r0) / (p.r1 - p.r0), 0.0, 1.0);
  let alpha = t * t * (3.0 - 2.0 * t);
  let hi = textureLoad(inner, ij, 0).r;
  var ho = p.outer_const;
  if (p.use_tex == 1u) { ho = textureLoad(outer_tex, ij, 0).r; }
  let a = (1.0 - alpha) * hi;
  let b = alpha * ho;
  return vec4<f32>(a + b, 0.0, 0.0, 0.0);
}
`;

export interface OuterBand {
  centre: [number, number];
  inner: number;
  outer: number;
}

/** Encodes target = blend(inner, outer). `outer` is a texture of the same size or a constant height in metres. */
export function encodeOuterBlend(
  ctx: GpuContext,
  enc: GPUCommandEncoder,
  grid: GpuGrid,
  band: OuterBand,
  inner: GPUTexture,
  outer: GPUTexture | number,
  target: GPUTexture,
): GPUBuffer {
  if (!(band.outer > band.inner)) throw new RangeError(`outer blend: expected outer radius > inner radius, got inner ${band.inner}, outer ${band.outer}`);
  if (target === inner) throw new RangeError('outer blend: the target must differ from the inner field');
  for (const t of [inner, target, ...(typeof outer === 'number' ? [] : [outer])]) {
    if (t.width !== grid.n || t.height !== grid.n) throw new RangeError(`outer blend: ${t.label} is ${t.width}×${t.height}, expected ${grid.n}×${grid.n}`);
  }
  const pipeline = cachedPipeline(ctx, 'outer', () => {
    const module = shaderModule(ctx, OUTER_WGSL, 'outer');
    return ctx.device.createRenderPipeline({
      label: 'outer',
      layout: 'auto',
      vertex: { module, entryPoint: 'vs_full' },
      fragment: { module, entryPoint: 'fs_outer', targets: [{ format: 'r32float' }] },
      primitive: { topology: 'triangle-list' },
    });
  });
  const u = new ArrayBuffer(48);
  const f = new Float32Array(u);
  f.set([grid.xmin, grid.ymin, grid.size / grid.n, band.inner, band.centre[0], band.centre[1], band.outer, typeof outer === 'number' ? outer : 0]);
  new Uint32Array(u, 32, 1)[0] = typeof outer === 'number' ? 0 : 1;
  const ub = ctx.device.createBuffer({ size: 48, usage: 0x40 | 0x8 });
  ctx.device.queue.writeBuffer(ub, 0, u);
  const bind = ctx.device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: inner.createView() },
      { binding: 1, resource: (typeof outer === 'number' ? inner : outer).createView() },
      { binding: 2, resource: { buffer: ub } },
    ],
  });
  const pass = enc.beginRenderPass({
    colorAttachments: [{ view: target.createView(), loadOp: 'clear', storeOp: 'store', clearValue: { r: 0, g: 0, b: 0, a: 0 } }],
  });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.draw(3);
  pass.end();
  return ub;
}
