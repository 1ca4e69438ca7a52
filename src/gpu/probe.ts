/**
 * GPU probe: the texture unit's answer at given (u, v, level) positions, for tests and teaching examples (the
 * bilinear example, trilinear level blending). A compute shader calls textureSampleLevel with the chosen sampler and
 * writes each result to a storage buffer.
 *
 * Inputs: an r32float texture (any mip count), a sampler ('linear' = linear min/mag, nearest mip; 'trilinear' =
 *   linear mip too; both clamp-to-edge), positions as (u, v, level) triples.
 * Outputs: one float32 per position.
 */
import { cachedPipeline, readBuffer, shaderModule, type GpuContext } from './context.js';

export const PROBE_WGSL = /* wgsl */ `
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var<storage, read> at: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> result: array<f32>;
@compute @workgroup_size(64) fn cs_probe(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x >= arrayLength(&result)) { return; }
  let q = at[id.x];
  result[id.x] = textureSampleLevel(tex, samp, q.xy, q.z).r;
}
`;

export async function sampleAt(
  ctx: GpuContext,
  tex: GPUTexture,
  uvl: readonly (readonly [number, number, number])[],
  sampler: 'linear' | 'trilinear' = 'linear',
): Promise<Float32Array> {
  const n = uvl.length;
  if (n === 0) return new Float32Array(0);
  const pipeline = cachedPipeline(ctx, 'probe', () =>
    ctx.device.createComputePipeline({ label: 'probe', layout: 'auto', compute: { module: shaderModule(ctx, PROBE_WGSL, 'probe'), entryPoint: 'cs_probe' } }),
  );
  const pos = new Float32Array(n * 4);
  uvl.forEach((p, k) => pos.set([p[0], p[1], p[2], 0], k * 4));
  const at = ctx.device.createBuffer({ size: pos.byteLength, usage: 0x80 | 0x8 });
  ctx.device.queue.writeBuffer(at, 0, pos);
  const out = ctx.device.createBuffer({ size: Math.max(4, n * 4), usage: 0x80 | 0x4 });
  const bind = ctx.device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: tex.createView() },
      { binding: 1, resource: sampler === 'linear' ? ctx.linearClamp : ctx.trilinearClamp },
      { binding: 2, resource: { buffer: at } },
      { binding: 3, resource: { buffer: out } },
    ],
  });
  const enc = ctx.device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(Math.ceil(n / 64));
  pass.end();
  ctx.device.queue.submit([enc.finish()]);
  const bytes = await readBuffer(ctx, out, n * 4);
  at.destroy();
  out.destroy();
  return new Float32Array(bytes);
}
