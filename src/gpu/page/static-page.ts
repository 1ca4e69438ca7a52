/**
 * The static GPU page's work, without the DOM (page-ui.ts draws it): a draw list in, the WebGPU executor run on the
 * viewer's adapter, every stage field and the final codes out as heightbench files with their sidecars.
 *
 * Inputs: a WebGPU entry point (navigator.gpu, or Dawn's GPU object in a test), a parsed DrawList whose assets are
 *   embedded (`heightbench drawlist REQ --embed-assets`), the producer to name in sidecars, callbacks.
 * Outputs: files named as `heightbench run --backend webgpu` names them — `<stage>.r32` (float32 little-endian,
 *   row 0 = ymin) for the seven field stages and `final.r16` (UNORM16 little-endian) — each with its sidecar text
 *   (`<file>.json`, heightbench.sidecar version 1: grid, encoding, stage, request, producer with the adapter, payload
 *   size and SHA-256), handed over one at a time so the page can turn each into a Blob and drop the array.
 * Rules: the executor and its options are the CLI's defaults (encode rule 'd3d', LOD from derivatives, uv from the
 *   inverse mapping), so the same list gives the same bytes as the Dawn host on the same driver. Assets: decoded by
 *   assets.ts after their SHA-256 (WebCrypto) is checked against the list's. The sidecar layout is restated here (src/gpu
 *   imports nothing from src/io); test/gpu-page.test.ts reads the page's files back with heightbench's own reader.
 * Uses no Node API and no DOM: WebCrypto (crypto.subtle) and WebGPU only.
 */
import { requestMatchingAdapter, type AdapterSpec } from '../adapter-select.js';
import type { DrawList, DrawListStage } from '../../drawlist/types.js';
import { decodeAsset, type DecodedAsset } from '../assets.js';
import { createContext, GpuInputError, GpuUnavailableError, type AdapterRecord } from '../context.js';
import { executeDrawList, type FieldStage, type StageEvent } from '../execute.js';

/** Who wrote the files (heightbench's name and version, passed in by the page's entry). */
export interface PageProducer {
  name: string;
  version: string;
}

export interface PageFile {
  /** File name, e.g. 'base.r32' or 'final.r16'. */
  name: string;
  stage: DrawListStage;
  bytes: Uint8Array;
  /** The sidecar's text, to be saved as `${name}.json`. */
  sidecar: string;
}

export interface PageRunCallbacks {
  /** A stage starts or is done (times in ms). */
  progress?: (e: StageEvent) => void;
  /** A finished file (field stages as they are read back, then final.r16). */
  file?: (f: PageFile) => void | Promise<void>;
}

export interface PageRunResult {
  adapter: AdapterRecord;
  timings: Record<string, number>;
  counts: { layer0: number; layer100: number; supportShapes: number; stamps: number; locations: number };
}

/** Which browser the page asks for when WebGPU is missing. */
export const PAGE_HINT = 'open the page in a browser with WebGPU enabled (Chrome/Edge 113+, or chromium with --enable-unsafe-webgpu)';

/** The largest R16 code — written here independently on purpose: src/gpu is the independent reference and reads nothing of src/conventions. */
const UNORM16_MAX = 65535;
/** Notes the CLI's GPU run writes in its sidecars, with the options the page uses. */
const NOTES = { backend: 'webgpu', storedAs: 'float32', encodeRule: 'd3d', lod: 'derivatives' } as const;

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Decodes every asset of the list from its embedded KTX2 bytes, each checked against the list's SHA-256. */
export async function decodeEmbeddedAssets(dl: DrawList): Promise<Map<string, DecodedAsset>> {
  const out = new Map<string, DecodedAsset>();
  for (const a of dl.assets) {
    if (!a.embedded)
      throw new GpuInputError(
        `asset ${a.id} (${a.file}) is not embedded in the draw list: write the list with \`heightbench drawlist REQUEST --embed-assets --out FILE.json\``,
      );
    const sha = await sha256Hex(a.embedded);
    if (sha !== a.sha256) throw new GpuInputError(`asset ${a.id}: SHA-256 ${sha} differs from the draw list's ${a.sha256}`);
    out.set(a.id, decodeAsset(a, a.embedded));
  }
  return out;
}

/** Little-endian bytes of a typed array (a copy; byte-swapped on a big-endian host). */
function littleEndian(a: Float32Array | Uint16Array): Uint8Array {
  const out = new Uint8Array(a.byteLength);
  const dv = new DataView(out.buffer);
  if (a instanceof Float32Array) for (let k = 0; k < a.length; k++) dv.setFloat32(4 * k, a[k], true);
  else for (let k = 0; k < a.length; k++) dv.setUint16(2 * k, a[k], true);
  return out;
}

/** The sidecar text of one page file (heightbench.sidecar v1, key order as src/io/sidecar.ts writes it). */
export async function pageSidecar(
  dl: DrawList,
  name: string,
  stage: DrawListStage,
  bytes: Uint8Array,
  adapter: AdapterRecord,
  producer: PageProducer,
): Promise<string> {
  const g = dl.grid;
  const r16 = name.endsWith('.r16');
  const range = { min: dl.encoding.min, max: dl.encoding.max };
  const sidecar = {
    format: 'heightbench.sidecar',
    version: 1,
    file: name,
    container: r16 ? 'r16' : 'r32',
    endian: 'le',
    grid: { xmin: g.xmin, ymin: g.ymin, sizeX: g.size, sizeY: g.size, columns: g.n, rows: g.n, convention: g.convention, rowDirection: g.rowDirection },
    encoding: r16 ? { kind: 'unorm16', range, metresPerCode: (range.max - range.min) / UNORM16_MAX } : { kind: 'float32', unit: 'm' },
    stage,
    request: dl.request.id,
    producer: {
      name: producer.name,
      version: producer.version,
      adapter: { vendor: adapter.vendor, architecture: adapter.architecture, device: adapter.device, description: adapter.description, host: adapter.host },
    },
    payload: { bytes: bytes.length, sha256: await sha256Hex(bytes) },
    notes: { ...NOTES, drawListProducer: `${dl.producer.name} ${dl.producer.version}` },
  };
  return `${JSON.stringify(sidecar, null, 2)}\n`;
}

/**
 * Runs the list on `gpu`'s adapter. Each field is turned into its file as soon as it is read back and handed to
 * `cb.file`; nothing is kept here, so the page holds one field array at a time.
 */
export async function runListOnGpu(
  gpu: GPU | undefined,
  dl: DrawList,
  producer: PageProducer,
  cb: PageRunCallbacks = {},
  host = 'browser',
  adapter: AdapterSpec = 'auto',
): Promise<PageRunResult> {
  if (!gpu) throw new GpuUnavailableError(`this browser has no WebGPU (navigator.gpu is missing): ${PAGE_HINT}`);
  const assets = await decodeEmbeddedAssets(dl);
  const ctx = await createContext(await requestMatchingAdapter(gpu, adapter, PAGE_HINT), host, PAGE_HINT);
  try {
    const deliver = async (name: string, stage: DrawListStage, data: Float32Array | Uint16Array) => {
      const bytes = littleEndian(data);
      const sidecar = await pageSidecar(dl, name, stage, bytes, ctx.adapter, producer);
      await cb.file?.({ name, stage, bytes, sidecar });
    };
    const res = await executeDrawList(ctx, dl, assets, {
      onProgress: cb.progress,
      onStage: (stage: FieldStage, field) => deliver(`${stage}.r32`, stage, field),
    });
    await deliver('final.r16', 'final', res.codes);
    return { adapter: res.adapter, timings: res.timings, counts: res.counts };
  } finally {
    ctx.device.destroy();
  }
}
