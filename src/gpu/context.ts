/// <reference types="@webgpu/types" />
/**
 * The GPU context every pass takes: a device with the two features the reference needs, the adapter's identity, and
 * small helpers (upload, read back, full-screen pipelines). Host-agnostic: it runs unchanged under Dawn for Node
 * (dawn-host.ts) and in a browser page (page.ts); it touches no Node API and no global WebGPU constant objects
 * (the numeric flags below are the WebGPU specification's fixed values, written here because Dawn for Node only
 * installs its globals when asked to).
 *
 * Inputs: a GPUAdapter (from navigator.gpu or Dawn's create()).
 * Outputs: GpuContext { device, adapter info, helpers }.
 * Rules [G]: `float32-filterable` (linear sampling of r32float) and `float32-blendable` (ADD/MIN/MAX blending into
 * r32float) are required; without them the reference cannot run as specified, so their absence is an error naming
 * the feature, never a silent fallback.
 */

/** GPUBufferUsage, GPUTextureUsage, GPUMapMode, GPUShaderStage values (WebGPU spec, fixed). */
export const BUF = { MAP_READ: 0x1, MAP_WRITE: 0x2, COPY_SRC: 0x4, COPY_DST: 0x8, INDEX: 0x10, VERTEX: 0x20, UNIFORM: 0x40, STORAGE: 0x80 } as const;
export const TEX = { COPY_SRC: 0x1, COPY_DST: 0x2, TEXTURE_BINDING: 0x4, STORAGE_BINDING: 0x8, RENDER_ATTACHMENT: 0x10 } as const;
export const MAP_READ = 0x1;
export const STAGE = { VERTEX: 0x1, FRAGMENT: 0x2, COMPUTE: 0x4 } as const;

/** Features the reference requires of the adapter. */
export const REQUIRED_FEATURES: readonly GPUFeatureName[] = ['float32-filterable', 'float32-blendable'];

/** What sidecars and reports record about the adapter that produced a field. */
export interface AdapterRecord {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** Which host drove it: 'dawn-node' or 'chromium-playwright' (or 'browser' for the static page). */
  host: string;
  features: string[];
  /** Measured vertex snapping of the rasterizer, fraction bits (raster.ts measureSubpixelBits), when measured. */
  subpixelBits?: number;
}

/** The device could not be obtained or lacks a required feature: the user's environment, not a bug (exit 2). */
export class GpuUnavailableError extends Error {
  override readonly name = 'GpuUnavailableError';
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
  }
}

/**
 * A draw list, grid or asset that the GPU executor cannot take (the caller's input): exit 2. src/gpu imports nothing
 * from the rest of heightbench, so it marks input errors by `exitCode` rather than by extending its InputError.
 */
export class GpuInputError extends RangeError {
  override readonly name = 'RangeError';
  readonly exitCode = 2;
}

export interface GpuContext {
  device: GPUDevice;
  adapter: AdapterRecord;
  /** Linear min/mag, nearest mip, clamp-to-edge: the smoothing chain's sampler. */
  linearClamp: GPUSampler;
  /** Linear min/mag/mip (trilinear), clamp-to-edge: the stamp and location draws' sampler. */
  trilinearClamp: GPUSampler;
}

export function adapterRecord(adapter: GPUAdapter, host: string): AdapterRecord {
  const info = adapter.info;
  return {
    vendor: String(info?.vendor ?? ''),
    architecture: String(info?.architecture ?? ''),
    device: String(info?.device ?? ''),
    description: String(info?.description ?? ''),
    host,
    features: [...adapter.features].map(String).sort(),
  };
}

/** Requests the device with the required features; throws GpuUnavailableError naming what is missing. */
export async function createContext(adapter: GPUAdapter | null, host: string, installHint: string): Promise<GpuContext> {
  if (!adapter) throw new GpuUnavailableError(`no WebGPU adapter from ${host}: ${installHint}`);
  const missing = REQUIRED_FEATURES.filter((f) => !adapter.features.has(f));
  if (missing.length) {
    const rec = adapterRecord(adapter, host);
    throw new GpuUnavailableError(
      `WebGPU adapter ${rec.vendor}/${rec.architecture} from ${host} lacks ${missing.join(', ')} (needed for r32float sampling and blending); ${installHint}`,
    );
  }
  const lim = adapter.limits;
  const device = await adapter.requestDevice({
    requiredFeatures: [...REQUIRED_FEATURES],
    // The largest targets are 4096² r32float (64 MiB) and their read-back buffers.
    requiredLimits: {
      maxTextureDimension2D: Math.min(lim.maxTextureDimension2D, 8192),
      maxBufferSize: lim.maxBufferSize,
      maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize,
    },
  });
  device.addEventListener('uncapturederror', (ev) => {
    // Validation errors are bugs in this module: surface them loudly instead of producing silent zeros.
    const e = (ev as GPUUncapturedErrorEvent).error;
    console.error(`WebGPU uncaptured error: ${e.message}`);
  });
  return {
    device,
    adapter: adapterRecord(adapter, host),
    linearClamp: device.createSampler({
      magFilter: 'linear',
      minFilter: 'linear',
      mipmapFilter: 'nearest',
      addressModeU: 'clamp-to-edge',
      addressModeV: 'clamp-to-edge',
    }),
    trilinearClamp: device.createSampler({
      magFilter: 'linear',
      minFilter: 'linear',
      mipmapFilter: 'linear',
      addressModeU: 'clamp-to-edge',
      addressModeV: 'clamp-to-edge',
    }),
  };
}

/** Runs `fn` inside a validation error scope and throws the first validation error it produced. */
export async function checked<T>(ctx: GpuContext, what: string, fn: () => T): Promise<T> {
  ctx.device.pushErrorScope('validation');
  ctx.device.pushErrorScope('out-of-memory');
  const r = fn();
  const oom = await ctx.device.popErrorScope();
  const val = await ctx.device.popErrorScope();
  if (oom) throw new GpuUnavailableError(`${what}: the GPU ran out of memory (${oom.message})`);
  if (val) throw new Error(`${what}: WebGPU validation error: ${val.message}`);
  return r;
}

/** An r32float texture usable as render target, sampled texture and copy source/destination. */
export function fieldTexture(ctx: GpuContext, width: number, height: number, label: string, mipLevelCount = 1): GPUTexture {
  return ctx.device.createTexture({
    label,
    size: { width, height },
    format: 'r32float',
    mipLevelCount,
    usage: TEX.RENDER_ATTACHMENT | TEX.TEXTURE_BINDING | TEX.COPY_SRC | TEX.COPY_DST,
  });
}

/** Writes a row-major float32 field (row 0 = texture row 0) into one mip level of an r32float texture. */
export function uploadField(ctx: GpuContext, tex: GPUTexture, data: Float32Array, width: number, height: number, mipLevel = 0): void {
  if (data.length !== width * height)
    throw new RangeError(`uploadField ${tex.label}: expected ${width}×${height} = ${width * height} values, got ${data.length}`);
  ctx.device.queue.writeTexture({ texture: tex, mipLevel }, data, { bytesPerRow: width * 4, rowsPerImage: height }, { width, height });
}

/** Creates a texture holding `data` (w × h). */
export function textureFrom(ctx: GpuContext, data: Float32Array, width: number, height: number, label: string): GPUTexture {
  const t = fieldTexture(ctx, width, height, label);
  uploadField(ctx, t, data, width, height);
  return t;
}

/** Reads an r32float texture (mip 0) back into `out` (row 0 = texture row 0). Rows are padded to 256 bytes on the way. */
export async function readField(ctx: GpuContext, tex: GPUTexture, out?: Float32Array): Promise<Float32Array> {
  const w = tex.width;
  const h = tex.height;
  const result = out ?? new Float32Array(w * h);
  if (result.length !== w * h) throw new RangeError(`readField ${tex.label}: output holds ${result.length} values, expected ${w * h}`);
  const bytesPerRow = Math.ceil((w * 4) / 256) * 256;
  // Read in bands so the staging buffer stays bounded (≤ 16 MiB, host memory under SwiftShader) whatever the size.
  const bandRows = Math.max(1, Math.min(h, Math.floor((16 << 20) / bytesPerRow)));
  const staging = ctx.device.createBuffer({ size: bytesPerRow * bandRows, usage: BUF.MAP_READ | BUF.COPY_DST });
  try {
    for (let y0 = 0; y0 < h; y0 += bandRows) {
      const rows = Math.min(bandRows, h - y0);
      const enc = ctx.device.createCommandEncoder();
      enc.copyTextureToBuffer({ texture: tex, origin: { x: 0, y: y0 } }, { buffer: staging, bytesPerRow, rowsPerImage: rows }, { width: w, height: rows });
      ctx.device.queue.submit([enc.finish()]);
      await staging.mapAsync(MAP_READ, 0, bytesPerRow * rows);
      const src = new Float32Array(staging.getMappedRange(0, bytesPerRow * rows));
      const stride = bytesPerRow / 4;
      if (stride === w) result.set(src.subarray(0, w * rows), y0 * w);
      else for (let r = 0; r < rows; r++) result.set(src.subarray(r * stride, r * stride + w), (y0 + r) * w);
      staging.unmap();
    }
  } finally {
    staging.destroy();
  }
  return result;
}

/** Reads a whole storage buffer back. */
export async function readBuffer(ctx: GpuContext, buf: GPUBuffer, bytes: number): Promise<ArrayBuffer> {
  const staging = ctx.device.createBuffer({ size: bytes, usage: BUF.MAP_READ | BUF.COPY_DST });
  try {
    const enc = ctx.device.createCommandEncoder();
    enc.copyBufferToBuffer(buf, 0, staging, 0, bytes);
    ctx.device.queue.submit([enc.finish()]);
    await staging.mapAsync(MAP_READ);
    return staging.getMappedRange().slice(0);
  } finally {
    staging.unmap();
    staging.destroy();
  }
}

/** A uniform buffer holding `data` (padded to 16 bytes). */
export function uniformBuffer(ctx: GpuContext, data: ArrayBuffer, label: string): GPUBuffer {
  const size = Math.ceil(data.byteLength / 16) * 16;
  const b = ctx.device.createBuffer({ label, size, usage: BUF.UNIFORM | BUF.COPY_DST });
  ctx.device.queue.writeBuffer(b, 0, data);
  return b;
}

/** Waits until every submitted command has finished (for timings). */
export async function finish(ctx: GpuContext): Promise<void> {
  await ctx.device.queue.onSubmittedWorkDone();
}

/**
 * WGSL of a vertex stage drawing one triangle that covers the whole target: fragments then run at every pixel centre
 * and read their position from @builtin(position) (the pixel centre (i + 0.5, j + 0.5), row 0 = texture row 0).
 */
export const FULLSCREEN_VS = /* wgsl */ `
@vertex fn vs_full(@builtin(vertex_index) k: u32) -> @builtin(position) vec4<f32> {
  let x = select(-1.0, 3.0, k == 1u);
  let y = select(-1.0, 3.0, k == 2u);
  return vec4<f32>(x, y, 0.0, 1.0);
}
`;

const modules = new WeakMap<GPUDevice, Map<string, GPUShaderModule>>();
/** One shader module per (device, source): passes are called many times with the same WGSL. */
export function shaderModule(ctx: GpuContext, code: string, label: string): GPUShaderModule {
  let m = modules.get(ctx.device);
  if (!m) modules.set(ctx.device, (m = new Map()));
  let s = m.get(code);
  if (!s) m.set(code, (s = ctx.device.createShaderModule({ label, code })));
  return s;
}

const pipelines = new WeakMap<GPUDevice, Map<string, GPURenderPipeline | GPUComputePipeline>>();
/** Caches pipelines per device under a key naming their shader and state. */
export function cachedPipeline<T extends GPURenderPipeline | GPUComputePipeline>(ctx: GpuContext, key: string, make: () => T): T {
  let m = pipelines.get(ctx.device);
  if (!m) pipelines.set(ctx.device, (m = new Map()));
  let p = m.get(key) as T | undefined;
  if (!p) m.set(key, (p = make()));
  return p;
}

/**
 * The target grid every pass shares (the draw list's grid, restated here so src/gpu needs no CPU module): square,
 * texel-centre, row 0 at ymin. Pixel (i, j) samples world (xmin + (i + 0.5)·size/n, ymin + (j + 0.5)·size/n).
 * [R] Texture row 0 holds grid row 0 (world ymin), so read-back rows come out in heightbench's row order with no flip.
 */
export interface GpuGrid {
  xmin: number;
  ymin: number;
  size: number;
  n: number;
}

export function checkGrid(g: GpuGrid, what: string): GpuGrid {
  for (const k of ['xmin', 'ymin', 'size'] as const) {
    if (typeof g[k] !== 'number' || !Number.isFinite(g[k])) throw new GpuInputError(`${what}: grid.${k} must be a finite number, got ${String(g[k])}`);
  }
  if (!(g.size > 0)) throw new GpuInputError(`${what}: grid.size must be > 0, got ${g.size}`);
  if (!Number.isInteger(g.n) || g.n < 1 || g.n > 8192) throw new GpuInputError(`${what}: grid.n must be an integer in [1, 8192], got ${g.n}`);
  return g;
}
