/**
 * GPU pass: height triangles through the render pipeline into an r32float target with ADD blending (article:
 * "Rasterizing Height Geometry into a Floating-Point Field", "From a Triangle to One Pixel").
 *
 * Inputs: a triangle list, 9 numbers per triangle (x, y, h of 3 vertices, world metres), in draw order; the grid;
 *   the target texture (n × n r32float) and whether to clear it to 0 first.
 * Outputs: the target with every covered pixel's interpolated height added, primitive by primitive.
 * Who decides what [G]: the hardware rasterizer applies the pixel centres, vertex snapping (the device's sub-pixel
 *   precision: measured by measureSubpixelBits and recorded with the adapter — SwiftShader snaps to 1/16 pixel, not
 *   the 1/256 of Direct3D's 16.8 rule the draw list names) and the fill rule; the interpolator forms λ0·h0 + λ1·h1 + λ2·h2; the blend unit adds in primitive
 *   order (rasterization order, guaranteed by WebGPU/Vulkan for one draw). This file only maps world to clip space.
 * Projection [R]: clip = (2·(x − xmin)/size − 1, 1 − 2·(y − ymin)/size, 0, 1), computed in float64 on the host and
 *   rounded once to float32. NDC y = +1 (framebuffer row 0, the top) is world ymin, so framebuffer row j holds world
 *   rows advancing to +Y: texture row 0 = ymin = heightbench's row0-at-ymin, with no flip on read-back. The flip
 *   mirrors the triangles' screen winding, so culling is off (the fill rule does not depend on winding).
 */
import { cachedPipeline, checkGrid, readField, shaderModule, type GpuContext, type GpuGrid } from './context.js';

export const RASTER_WGSL = /* wgsl */ `
struct VOut {
  @builtin(position) pos: vec4<f32>,
  @location(0) h: f32,
};
@vertex fn vs_tri(@location(0) clip: vec2<f32>, @location(1) h: f32) -> VOut {
  var o: VOut;
  o.pos = vec4<f32>(clip, 0.0, 1.0);
  o.h = h;
  return o;
}
@fragment fn fs_tri(v: VOut) -> @location(0) vec4<f32> {
  return vec4<f32>(v.h, 0.0, 0.0, 0.0);
}
`;

/** Converts world triangles (x, y, h per vertex) to the vertex buffer layout (clip x, clip y, h) as float32. */
export function clipVertices(grid: GpuGrid, xyh: ArrayLike<number>, out?: Float32Array): Float32Array {
  if (xyh.length % 9 !== 0) throw new RangeError(`raster: expected 9 numbers per triangle (x, y, h × 3), got ${xyh.length}`);
  const v = out ?? new Float32Array(xyh.length);
  if (v.length !== xyh.length) throw new RangeError(`raster: vertex buffer holds ${v.length} floats, expected ${xyh.length}`);
  const sx = 2 / grid.size;
  for (let k = 0; k < xyh.length; k += 3) {
    v[k] = (xyh[k] - grid.xmin) * sx - 1;
    v[k + 1] = 1 - (xyh[k + 1] - grid.ymin) * sx;
    v[k + 2] = xyh[k + 2];
  }
  return v;
}

function rasterPipeline(ctx: GpuContext): GPURenderPipeline {
  return cachedPipeline(ctx, 'raster-add', () => {
    const module = shaderModule(ctx, RASTER_WGSL, 'raster');
    return ctx.device.createRenderPipeline({
      label: 'raster-add',
      layout: 'auto',
      vertex: {
        module,
        entryPoint: 'vs_tri',
        buffers: [
          {
            arrayStride: 12,
            attributes: [
              { shaderLocation: 0, offset: 0, format: 'float32x2' },
              { shaderLocation: 1, offset: 8, format: 'float32' },
            ],
          },
        ],
      },
      fragment: {
        module,
        entryPoint: 'fs_tri',
        targets: [
          {
            format: 'r32float',
            blend: { color: { operation: 'add', srcFactor: 'one', dstFactor: 'one' }, alpha: { operation: 'add', srcFactor: 'one', dstFactor: 'one' } },
          },
        ],
      },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
    });
  });
}

/**
 * Encodes one ADD draw of `xyh`'s triangles into `target` (cleared to 0 first when `clear`). The vertex buffer is
 * returned so the caller can destroy it after submission.
 */
export function encodeRaster(
  ctx: GpuContext,
  enc: GPUCommandEncoder,
  grid: GpuGrid,
  xyh: ArrayLike<number>,
  target: GPUTexture,
  clear: boolean,
): GPUBuffer | null {
  checkGrid(grid, 'raster');
  if (target.width !== grid.n || target.height !== grid.n || target.format !== 'r32float') {
    throw new RangeError(`raster: target must be ${grid.n}×${grid.n} r32float, got ${target.width}×${target.height} ${target.format}`);
  }
  const count = xyh.length / 9;
  const verts = count > 0 ? clipVertices(grid, xyh) : null;
  let vb: GPUBuffer | null = null;
  if (verts) {
    vb = ctx.device.createBuffer({ label: 'raster vertices', size: verts.byteLength, usage: 0x20 | 0x8 /* VERTEX | COPY_DST */ });
    ctx.device.queue.writeBuffer(vb, 0, verts);
  }
  const pass = enc.beginRenderPass({
    colorAttachments: [{ view: target.createView(), loadOp: clear ? 'clear' : 'load', storeOp: 'store', clearValue: { r: 0, g: 0, b: 0, a: 0 } }],
  });
  if (vb) {
    pass.setPipeline(rasterPipeline(ctx));
    pass.setVertexBuffer(0, vb);
    pass.draw(count * 3);
  }
  pass.end();
  return vb;
}

/** Rasterizes `xyh` into `target` and waits for the GPU. */
export async function rasterTriangles(ctx: GpuContext, grid: GpuGrid, xyh: ArrayLike<number>, target: GPUTexture, clear = true): Promise<void> {
  const enc = ctx.device.createCommandEncoder();
  const vb = encodeRaster(ctx, enc, grid, xyh, target, clear);
  ctx.device.queue.submit([enc.finish()]);
  await ctx.device.queue.onSubmittedWorkDone();
  vb?.destroy();
}

/**
 * Measures the device's vertex snapping (the draw list asks for 8 fraction bits; WebGPU does not expose the
 * device's sub-pixel precision). One draw: in row j a left edge (owned by the fill rule) sits (j + 1)/1024 pixel to
 * the right of pixel centre x = 2.5. Snapping to 2^−B pixel with round to nearest moves it onto the centre — which
 * is then covered — while the offset is ≤ 2^−(B+1); the first uncovered row gives B. SwiftShader: B = 4.
 */
export async function measureSubpixelBits(ctx: GpuContext): Promise<number> {
  const rows = 128;
  const grid = { xmin: 0, ymin: 0, size: rows, n: rows };
  const xyh: number[] = [];
  for (let j = 0; j < rows; j++) {
    const x = 2.5 + (j + 1) / 1024;
    xyh.push(x, j, 1, rows, j, 1, x, j + 1, 1, rows, j, 1, rows, j + 1, 1, x, j + 1, 1);
  }
  const t = ctx.device.createTexture({ size: { width: rows, height: rows }, format: 'r32float', usage: 0x10 | 0x1 | 0x4 });
  await rasterTriangles(ctx, grid, xyh, t);
  const f = await readField(ctx, t);
  t.destroy();
  let first = rows;
  for (let j = 0; j < rows; j++) {
    if (f[j * rows + 2] !== 1) {
      first = j;
      break;
    }
  }
  if (first === 0) return 10; // even 1/1024 pixel moves the edge: at least 10 bits (finer than this probe resolves)
  // Covered up to offset first/1024 ≈ 2^−(B+1).
  return Math.round(-Math.log2(first / 1024)) - 1;
}
