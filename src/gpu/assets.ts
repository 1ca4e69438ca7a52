/**
 * Asset decoding for the GPU executor: a draw list asset's KTX2 bytes (VK_FORMAT_R16_UNORM, one level per mip) →
 * decoded metres per level, ready for assetTexture().
 *
 * Inputs: the asset record of the draw list (sizes, decode) and its KTX2 bytes.
 * Outputs: { sizes, levels } with level k a Float32Array of sizes[k]² values, row 0 = the file's first row (v = 0).
 * [R] Decoding (code·metresPerCode + offsetMetres) is evaluated in float64 and rounded once to float32 on the host:
 *     the draw list defines the decoded value; the GPU's work starts at sampling. Checks: format, level count and
 *     sizes against the asset record, each level's byte length, no supercompression.
 */
import { GpuInputError } from './context.js';
import { read as readKtx } from 'ktx-parse';
import type { DrawListAsset } from '../drawlist/types.js';

/** VK_FORMAT_R16_UNORM (Vulkan spec value). */
const R16_UNORM = 70;

export interface DecodedAsset {
  id: string;
  worldSize: number;
  sizes: number[];
  levels: Float32Array[];
}

export function decodeAsset(asset: DrawListAsset, bytes: Uint8Array): DecodedAsset {
  const what = `asset ${asset.id} (${asset.file})`;
  let c;
  try {
    c = readKtx(bytes);
  } catch (e) {
    throw new GpuInputError(`${what}: not a readable KTX2 file (${e instanceof Error ? e.message : String(e)})`);
  }
  if (c.vkFormat !== R16_UNORM) throw new GpuInputError(`${what}: vkFormat ${c.vkFormat}, expected ${R16_UNORM} (R16_UNORM)`);
  // [R] Supercompressed levels (BasisLZ, Zstandard, ZLIB) are not decoded here: read as raw they would be garbage heights.
  if (c.supercompressionScheme !== 0)
    throw new GpuInputError(
      `${what}: supercompression scheme ${c.supercompressionScheme}, expected 0 (none): compressed KTX2 levels are refused, not read as raw`,
    );
  if (c.pixelHeight !== c.pixelWidth) throw new GpuInputError(`${what}: ${c.pixelWidth}×${c.pixelHeight}, expected a square texture`);
  if (c.levels.length !== asset.levelSizes.length)
    throw new GpuInputError(`${what}: ${c.levels.length} levels in the file, the draw list says ${asset.levelSizes.length}`);
  if (c.pixelWidth !== asset.size) throw new GpuInputError(`${what}: level 0 is ${c.pixelWidth} wide, the draw list says ${asset.size}`);
  const { metresPerCode, offsetMetres } = asset.decode;
  const levels = c.levels.map((lv, k) => {
    const n = asset.levelSizes[k];
    const b = lv.levelData;
    if (b.length !== n * n * 2) throw new GpuInputError(`${what}: level ${k} has ${b.length} bytes, expected ${n}×${n}×2 = ${n * n * 2}`);
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const out = new Float32Array(n * n);
    for (let i = 0; i < out.length; i++) out[i] = dv.getUint16(2 * i, true) * metresPerCode + offsetMetres;
    return out;
  });
  return { id: asset.id, worldSize: asset.worldSize, sizes: [...asset.levelSizes], levels };
}
