/**
 * DDS decoder: one 2-D band out of a DirectDraw Surface file, as a frame debugger's "save texture" writes it.
 *
 * Input: the whole file's bytes, the path (for messages), a selection (mip level, array slice, channel) and the pixel
 * limit. Output: a DecodedRaster (src/io/formats/decoded-image.ts) holding the selected subresource's samples in stored row
 * order (row 0 = the top of the image), uint16 for UNORM16 formats (unorm16 = true), float32 for 32-bit floats and
 * float16 widened exactly to float32.
 *
 * Rules [R]:
 * - Layout follows Microsoft's documentation: "DDS " magic, DDS_HEADER (124 bytes, its DDS_PIXELFORMAT 32 bytes),
 *   then DDS_HEADER_DXT10 (20 bytes) when the FourCC is "DX10", then the pixel data: for each array slice all of its
 *   mips from the largest, mip k being max(1, w >> k) × max(1, h >> k) tightly packed rows.
 * - Formats read: DXGI R16_UNORM, R32_FLOAT, R16_FLOAT; with a channel (R|G|B|A) also R16G16_UNORM/FLOAT,
 *   R32G32_FLOAT, R32G32B32_FLOAT, R16G16B16A16_UNORM/FLOAT, R32G32B32A32_FLOAT. Legacy headers only where the
 *   mapping is unambiguous (L16, G16R16 masks, the D3DFMT float/16-bit FourCCs). Everything else is refused with the
 *   format's name and number and why: integers have no height mapping, block compression is lossy, 8 bits is too
 *   coarse, typeless has no interpretation.
 * - Volume textures, cube maps and 1-D textures are refused; so is a declared pitch that contradicts tight rows.
 * - Every declared size is checked against the pixel limit and against the bytes present before anything is
 *   allocated; the file must hold every subresource it declares (a shorter file is truncated, not "mostly fine").
 */
import { FormatError, LimitError } from '../../errors.js';
import type { DecodedRaster, RasterHeader, RasterLimits, RasterSelection, RawSampleRun } from './decoded-image.js';
import { sourceOf, type DecoderInput } from '../byte-source.js';
import { checkFieldSize, checkReaderMemory } from '../limits.js';

// --- Documented constants (Microsoft "DDS_HEADER structure", "DDS_PIXELFORMAT structure", "DDS_HEADER_DXT10").
const MAGIC = 0x20534444; // "DDS " read little-endian
const HEADER_SIZE = 124;
const PIXELFORMAT_SIZE = 32;
const DX10_SIZE = 20;
const DDSD_PITCH = 0x8;
const DDSD_LINEARSIZE = 0x80000;
const DDSD_DEPTH = 0x800000;
const DDPF_ALPHAPIXELS = 0x1;
const DDPF_FOURCC = 0x4;
const DDPF_RGB = 0x40;
const DDPF_LUMINANCE = 0x20000;
const DDSCAPS2_CUBEMAP = 0x200;
const DDSCAPS2_VOLUME = 0x200000;
const DDS_RESOURCE_MISC_TEXTURECUBE = 0x4;
const DIMENSION_TEXTURE1D = 2;
const DIMENSION_TEXTURE2D = 3;
const DIMENSION_TEXTURE3D = 4;
const FOURCC_DX10 = 0x30315844; // "DX10"

/** DXGI_FORMAT names by value (dxgiformat.h), so a refusal can name what the file holds. */
const DXGI_NAMES: readonly string[] = [
  'UNKNOWN',
  'R32G32B32A32_TYPELESS',
  'R32G32B32A32_FLOAT',
  'R32G32B32A32_UINT',
  'R32G32B32A32_SINT',
  'R32G32B32_TYPELESS',
  'R32G32B32_FLOAT',
  'R32G32B32_UINT',
  'R32G32B32_SINT',
  'R16G16B16A16_TYPELESS',
  'R16G16B16A16_FLOAT',
  'R16G16B16A16_UNORM',
  'R16G16B16A16_UINT',
  'R16G16B16A16_SNORM',
  'R16G16B16A16_SINT',
  'R32G32_TYPELESS',
  'R32G32_FLOAT',
  'R32G32_UINT',
  'R32G32_SINT',
  'R32G8X24_TYPELESS',
  'D32_FLOAT_S8X24_UINT',
  'R32_FLOAT_X8X24_TYPELESS',
  'X32_TYPELESS_G8X24_UINT',
  'R10G10B10A2_TYPELESS',
  'R10G10B10A2_UNORM',
  'R10G10B10A2_UINT',
  'R11G11B10_FLOAT',
  'R8G8B8A8_TYPELESS',
  'R8G8B8A8_UNORM',
  'R8G8B8A8_UNORM_SRGB',
  'R8G8B8A8_UINT',
  'R8G8B8A8_SNORM',
  'R8G8B8A8_SINT',
  'R16G16_TYPELESS',
  'R16G16_FLOAT',
  'R16G16_UNORM',
  'R16G16_UINT',
  'R16G16_SNORM',
  'R16G16_SINT',
  'R32_TYPELESS',
  'D32_FLOAT',
  'R32_FLOAT',
  'R32_UINT',
  'R32_SINT',
  'R24G8_TYPELESS',
  'D24_UNORM_S8_UINT',
  'R24_UNORM_X8_TYPELESS',
  'X24_TYPELESS_G8_UINT',
  'R8G8_TYPELESS',
  'R8G8_UNORM',
  'R8G8_UINT',
  'R8G8_SNORM',
  'R8G8_SINT',
  'R16_TYPELESS',
  'R16_FLOAT',
  'D16_UNORM',
  'R16_UNORM',
  'R16_UINT',
  'R16_SNORM',
  'R16_SINT',
  'R8_TYPELESS',
  'R8_UNORM',
  'R8_UINT',
  'R8_SNORM',
  'R8_SINT',
  'A8_UNORM',
  'R1_UNORM',
  'R9G9B9E5_SHAREDEXP',
  'R8G8_B8G8_UNORM',
  'G8R8_G8B8_UNORM',
  'BC1_TYPELESS',
  'BC1_UNORM',
  'BC1_UNORM_SRGB',
  'BC2_TYPELESS',
  'BC2_UNORM',
  'BC2_UNORM_SRGB',
  'BC3_TYPELESS',
  'BC3_UNORM',
  'BC3_UNORM_SRGB',
  'BC4_TYPELESS',
  'BC4_UNORM',
  'BC4_SNORM',
  'BC5_TYPELESS',
  'BC5_UNORM',
  'BC5_SNORM',
  'B5G6R5_UNORM',
  'B5G5R5A1_UNORM',
  'B8G8R8A8_UNORM',
  'B8G8R8X8_UNORM',
  'R10G10B10_XR_BIAS_A2_UNORM',
  'B8G8R8A8_TYPELESS',
  'B8G8R8A8_UNORM_SRGB',
  'B8G8R8X8_TYPELESS',
  'B8G8R8X8_UNORM_SRGB',
  'BC6H_TYPELESS',
  'BC6H_UF16',
  'BC6H_SF16',
  'BC7_TYPELESS',
  'BC7_UNORM',
  'BC7_UNORM_SRGB',
  'AYUV',
  'Y410',
  'Y416',
  'NV12',
  'P010',
  'P016',
  '420_OPAQUE',
  'YUY2',
  'Y210',
  'Y216',
  'NV11',
  'AI44',
  'IA44',
  'P8',
  'A8P8',
  'B4G4R4A4_UNORM',
];
const DXGI_LATE_NAMES: Readonly<Record<number, string>> = {
  130: 'P208',
  131: 'V208',
  132: 'V408',
  189: 'SAMPLER_FEEDBACK_MIN_MIP_OPAQUE',
  190: 'SAMPLER_FEEDBACK_MIP_REGION_USED_OPAQUE',
  191: 'A4B4G4R4_UNORM',
};

/** "DXGI_FORMAT_R16_UNORM (56)", or "unknown DXGI_FORMAT 777" for a value outside the enumeration. */
export function dxgiFormatName(code: number): string {
  const name = DXGI_NAMES[code] ?? DXGI_LATE_NAMES[code];
  return name === undefined ? `unknown DXGI_FORMAT ${code}` : `DXGI_FORMAT_${name} (${code})`;
}

/** A format this decoder reads: component type and the channels interleaved per pixel. */
interface PixelLayout {
  readonly dxgi: number;
  readonly component: 'unorm16' | 'float16' | 'float32';
  readonly channels: string; // e.g. "R", "RG", "RGBA" in memory order
}

const READABLE: ReadonlyMap<number, PixelLayout> = new Map<number, PixelLayout>(
  (
    [
      [56, 'unorm16', 'R'],
      [54, 'float16', 'R'],
      [41, 'float32', 'R'],
      [35, 'unorm16', 'RG'],
      [34, 'float16', 'RG'],
      [16, 'float32', 'RG'],
      [6, 'float32', 'RGB'],
      [11, 'unorm16', 'RGBA'],
      [10, 'float16', 'RGBA'],
      [2, 'float32', 'RGBA'],
    ] as const
  ).map(([dxgi, component, channels]) => [dxgi, { dxgi, component, channels }]),
);

function componentBytes(c: PixelLayout['component']): number {
  return c === 'float32' ? 4 : 2;
}

/** Why a DXGI format is not read, in words a user can act on. */
function refusalReason(code: number): string {
  const name = DXGI_NAMES[code] ?? DXGI_LATE_NAMES[code] ?? '';
  const fix = 'save the render target as R16_UNORM or R32_FLOAT';
  if (name === '') return `not a DXGI format heightbench knows; ${fix}`;
  if (name === 'UNKNOWN') return `the DX10 header names no format; ${fix}`;
  if (name.startsWith('BC')) return `block-compressed (lossy) formats are not decoded as heights; ${fix}`;
  if (name.endsWith('_TYPELESS') || name.includes('TYPELESS')) return `a typeless format has no defined interpretation of its bits; ${fix}`;
  if (name.startsWith('D') && /^D\d/.test(name)) return `a depth-stencil format holds depth, not heights; ${fix}`;
  if (name.endsWith('_UINT') || name.endsWith('_SINT')) return `${name} holds integers with no defined height mapping; ${fix}`;
  if (name.endsWith('_SNORM')) return `signed normalized samples have no height mapping here (heightbench's 16-bit codes are UNORM); ${fix}`;
  if (/^(R8|A8|R8G8|B8|R1_)/.test(name) || name.includes('8G8') || name.startsWith('B5') || name.startsWith('B4') || name.startsWith('A4'))
    return `8 bits or fewer per sample is too coarse for a heightfield; ${fix}`;
  return `not a height format heightbench reads (packed, shared-exponent, video or palette data); ${fix}`;
}

/** What the header declares, for the caller's report and for tests that compare fields with another reader. */
export interface DdsHeaderInfo {
  readonly width: number;
  readonly height: number;
  readonly mipCount: number;
  readonly arraySize: number;
  /** The DXGI format the pixels are read as (for a legacy header, the DXGI equivalent of its D3DFMT). */
  readonly dxgiFormat: number;
  /** DDS_HEADER_DXT10.resourceDimension, or null for a legacy header. */
  readonly resourceDimension: number | null;
  /** "DX10" or the legacy format name (e.g. "legacy D3DFMT_L16"). */
  readonly headerKind: string;
  /** Byte offset of the first pixel. */
  readonly dataOffset: number;
  readonly pitchOrLinearSize: number;
  readonly flags: number;
}

function fail(where: string, what: string): never {
  throw new FormatError(`${where}: DDS: ${what}`);
}

/** Maps a legacy DDS_PIXELFORMAT to a DXGI format, or refuses it naming why. */
function legacyFormat(dv: DataView, where: string): { dxgi: number; kind: string } {
  const pfFlags = dv.getUint32(80, true);
  const fourCC = dv.getUint32(84, true);
  const bits = dv.getUint32(88, true);
  const r = dv.getUint32(92, true);
  const g = dv.getUint32(96, true);
  const b = dv.getUint32(100, true);
  const a = dv.getUint32(104, true);
  if (pfFlags & DDPF_FOURCC) {
    // D3DFORMAT values stored numerically in dwFourCC (d3d9types.h), as D3DX and DirectXTex write them.
    const numeric: Readonly<Record<number, [number, string]>> = {
      36: [11, 'D3DFMT_A16B16G16R16'],
      111: [54, 'D3DFMT_R16F'],
      112: [34, 'D3DFMT_G16R16F'],
      113: [10, 'D3DFMT_A16B16G16R16F'],
      114: [41, 'D3DFMT_R32F'],
      115: [16, 'D3DFMT_G32R32F'],
      116: [2, 'D3DFMT_A32B32G32R32F'],
    };
    const hit = numeric[fourCC];
    if (hit !== undefined) return { dxgi: hit[0], kind: `legacy ${hit[1]}` };
    fail(
      where,
      `legacy FourCC ${describeFourCC(fourCC)} is not read (only D3DFMT_R16F/R32F/G16R16F/G32R32F/A16B16G16R16/A16B16G16R16F/A32B32G32R32F, or a DX10 header); save the render target as R16_UNORM or R32_FLOAT`,
    );
  }
  const masks = `bit count ${bits}, masks R 0x${hex(r)} G 0x${hex(g)} B 0x${hex(b)} A 0x${hex(a)}`;
  if (pfFlags & DDPF_LUMINANCE) {
    if (bits === 16 && r === 0xffff && g === 0 && b === 0 && a === 0 && (pfFlags & DDPF_ALPHAPIXELS) === 0) {
      return { dxgi: 56, kind: 'legacy D3DFMT_L16' };
    }
    fail(where, `legacy luminance format (${masks}) is not read: only 16-bit L16 (mask 0xffff) is unambiguous`);
  }
  if (pfFlags & DDPF_RGB) {
    if (bits === 32 && r === 0xffff && g === 0xffff0000 && b === 0 && a === 0) {
      return { dxgi: 35, kind: 'legacy D3DFMT_G16R16' };
    }
    fail(where, `legacy RGB format (${masks}) is not read: only G16R16 (32 bits, R 0xffff, G 0xffff0000) maps to a 16-bit format`);
  }
  fail(
    where,
    `legacy pixel format flags 0x${hex(pfFlags)} (${masks}) name no format heightbench reads; save the render target with a DX10 header as R16_UNORM or R32_FLOAT`,
  );
}

function hex(v: number): string {
  return (v >>> 0).toString(16);
}

function describeFourCC(v: number): string {
  const chars = [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
  const printable = chars.every((c) => c >= 0x20 && c < 0x7f);
  return printable ? `"${String.fromCharCode(...chars)}" (0x${hex(v)})` : `${v} (0x${hex(v)})`;
}

/**
 * Reads and checks the DDS headers (no pixel data, no allocation beyond the header). Throws FormatError for a file
 * that is not a DDS this decoder reads.
 */
export function parseDdsHeader(bytes: Uint8Array, where: string): DdsHeaderInfo {
  if (bytes.length < 4 + HEADER_SIZE) {
    fail(where, `file is ${bytes.length} bytes, shorter than the ${4 + HEADER_SIZE}-byte magic and DDS_HEADER`);
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== MAGIC) fail(where, `no "DDS " magic at the start (found ${describeFourCC(dv.getUint32(0, true))})`);
  const size = dv.getUint32(4, true);
  if (size !== HEADER_SIZE) fail(where, `DDS_HEADER.dwSize is ${size}, expected ${HEADER_SIZE}`);
  const pfSize = dv.getUint32(76, true);
  if (pfSize !== PIXELFORMAT_SIZE) fail(where, `DDS_PIXELFORMAT.dwSize is ${pfSize}, expected ${PIXELFORMAT_SIZE}`);
  const flags = dv.getUint32(8, true);
  const height = dv.getUint32(12, true);
  const width = dv.getUint32(16, true);
  const pitchOrLinearSize = dv.getUint32(20, true);
  const depth = dv.getUint32(24, true);
  const mipRaw = dv.getUint32(28, true);
  const caps2 = dv.getUint32(112, true);
  const pfFlags = dv.getUint32(80, true);
  const fourCC = dv.getUint32(84, true);

  if (width < 1 || height < 1) fail(where, `declared size ${width}×${height}; width and height must be at least 1`);
  if (caps2 & DDSCAPS2_VOLUME || (flags & DDSD_DEPTH && depth > 1)) {
    fail(where, `a volume texture (depth ${depth}) is not a heightfield; save one 2-D slice`);
  }
  if (caps2 & DDSCAPS2_CUBEMAP) fail(where, 'a cube map (DDSCAPS2_CUBEMAP) is not a heightfield; save one face as a 2-D texture');

  // [R] As DirectXTex reads it: a zero count means one level, whether or not DDSD_MIPMAPCOUNT is set.
  const mipCount = mipRaw === 0 ? 1 : mipRaw;
  const fullChain = 32 - Math.clz32(Math.max(width, height));
  if (mipCount > fullChain) {
    fail(where, `dwMipMapCount ${mipCount} exceeds the ${fullChain} levels a ${width}×${height} texture has`);
  }

  let dxgiFormat: number;
  let resourceDimension: number | null = null;
  let arraySize = 1;
  let headerKind: string;
  let dataOffset = 4 + HEADER_SIZE;
  if (pfFlags & DDPF_FOURCC && fourCC === FOURCC_DX10) {
    if (bytes.length < dataOffset + DX10_SIZE) {
      fail(where, `file is ${bytes.length} bytes; the FourCC "DX10" needs a ${DX10_SIZE}-byte DDS_HEADER_DXT10 ending at byte ${dataOffset + DX10_SIZE}`);
    }
    dxgiFormat = dv.getUint32(128, true);
    resourceDimension = dv.getUint32(132, true);
    const miscFlag = dv.getUint32(136, true);
    arraySize = dv.getUint32(140, true);
    dataOffset += DX10_SIZE;
    headerKind = 'DX10';
    if (resourceDimension === DIMENSION_TEXTURE3D) fail(where, 'a volume texture (DDS_DIMENSION_TEXTURE3D) is not a heightfield; save one 2-D slice');
    if (resourceDimension === DIMENSION_TEXTURE1D) fail(where, 'a 1-D texture (DDS_DIMENSION_TEXTURE1D) is not a heightfield');
    if (resourceDimension !== DIMENSION_TEXTURE2D) {
      fail(where, `DDS_HEADER_DXT10.resourceDimension is ${resourceDimension}; expected 3 (DDS_DIMENSION_TEXTURE2D)`);
    }
    if (miscFlag & DDS_RESOURCE_MISC_TEXTURECUBE)
      fail(where, 'a cube map (DDS_RESOURCE_MISC_TEXTURECUBE) is not a heightfield; save one face as a 2-D texture');
    if (arraySize < 1) fail(where, 'DDS_HEADER_DXT10.arraySize is 0; a texture has at least one slice');
  } else {
    const legacy = legacyFormat(dv, where);
    dxgiFormat = legacy.dxgi;
    headerKind = legacy.kind;
  }
  return { width, height, mipCount, arraySize, dxgiFormat, resourceDimension, headerKind, dataOffset, pitchOrLinearSize, flags };
}

/** What the header checks establish: the subresource's size, its bytes' place and layout, the channel chosen. */
interface DdsLayout {
  readonly header: RasterHeader;
  readonly layout: PixelLayout;
  readonly channel: number;
  readonly start: number;
  readonly count: number;
  readonly bpp: number;
  readonly formatName: string;
  readonly level: number;
  readonly slice: number;
}

/** The headers' checks (format, limit, pitch, selection, size present), shared by decoding and streaming. */
function ddsLayout(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): DdsLayout {
  const src = sourceOf(input, where);
  // The headers first (magic, DDS_HEADER, DDS_HEADER_DXT10), then only the subresource they name.
  const h = parseDdsHeader(src.head(4 + HEADER_SIZE + DX10_SIZE), where);
  const layout = READABLE.get(h.dxgiFormat);
  const formatName = dxgiFormatName(h.dxgiFormat);
  if (layout === undefined) fail(where, `${formatName} is not read: ${refusalReason(h.dxgiFormat)}`);
  // Sizes before anything else: the declared top level against the pixel limit.
  const pixels = h.width * h.height;
  if (pixels > limits.pixelLimit) {
    throw new LimitError(`${where}: DDS: declared size ${h.width}×${h.height} = ${pixels} pixels exceeds the limit of ${limits.pixelLimit}`);
  }
  checkFieldSize(`${where}: DDS declared size (width × height)`, h.width, h.height, limits.pixelLimit);
  const cb = componentBytes(layout.component);
  const bpp = cb * layout.channels.length;
  const rowBytes = h.width * bpp;
  // [R] Documented for uncompressed data: dwPitchOrLinearSize is the row pitch, (width · bits-per-pixel + 7) / 8.
  // 0 (many writers leave it unset) is accepted; a pitch flag with another value contradicts tight rows.
  // A legacy writer may set DDSD_LINEARSIZE with the top level's byte count instead; that is accepted too.
  const pitchFlag = (h.flags & DDSD_PITCH) !== 0;
  const linearFlag = !pitchFlag && (h.flags & DDSD_LINEARSIZE) !== 0;
  const declared = h.pitchOrLinearSize;
  if (declared !== 0 && declared !== rowBytes && !(linearFlag && declared === rowBytes * h.height)) {
    fail(
      where,
      `declared ${linearFlag ? 'linear size' : 'pitch'} ${declared} bytes contradicts ${formatName} at ${h.width}×${h.height}: rows are ${rowBytes} bytes (${bpp} bytes × ${h.width})`,
    );
  }

  const level = sel.level ?? 0;
  const slice = sel.slice ?? 0;
  if (!Number.isInteger(level) || level < 0 || level >= h.mipCount) {
    fail(where, `mip level ${level} is out of range: the file has ${h.mipCount} mip level${h.mipCount === 1 ? '' : 's'} (0…${h.mipCount - 1})`);
  }
  if (!Number.isInteger(slice) || slice < 0 || slice >= h.arraySize) {
    fail(where, `array slice ${slice} is out of range: the file has ${h.arraySize} slice${h.arraySize === 1 ? '' : 's'} (0…${h.arraySize - 1})`);
  }
  const channel = pickChannel(layout, formatName, sel.channel, where);

  // Byte layout: per slice, every mip from the largest.
  let sliceBytes = 0;
  let levelOffset = 0;
  let lw = h.width;
  let lh = h.height;
  for (let k = 0; k < h.mipCount; k++) {
    const w = Math.max(1, h.width >>> k);
    const hh = Math.max(1, h.height >>> k);
    if (k === level) {
      levelOffset = sliceBytes;
      lw = w;
      lh = hh;
    }
    sliceBytes += w * hh * bpp;
  }
  const totalBytes = sliceBytes * h.arraySize;
  if (!Number.isSafeInteger(totalBytes)) fail(where, `declared data size overflows (${h.arraySize} slices of ${sliceBytes} bytes)`);
  const present = src.size - h.dataOffset;
  if (present < totalBytes) {
    fail(
      where,
      `truncated: ${h.width}×${h.height} ${formatName}, ${h.mipCount} mip${h.mipCount === 1 ? '' : 's'} × ${h.arraySize} slice${h.arraySize === 1 ? '' : 's'} needs ${totalBytes} bytes of pixel data after the ${h.dataOffset}-byte header, the file has ${present}`,
    );
  }
  const start = h.dataOffset + slice * sliceBytes + levelOffset;
  const count = lw * lh;
  const sampleType = layout.component === 'unorm16' ? 'uint16' : layout.component;
  const bareName = formatName.replace(/ \(\d+\)$/, '');
  const formatWords = h.headerKind === 'DX10' ? `${bareName} (DX10)` : `${h.headerKind.replace('legacy ', '')} (legacy header, read as ${bareName})`;
  const channelWords = layout.channels.length > 1 ? `, channel ${layout.channels[channel]} of ${layout.channels}` : '';
  const header: RasterHeader = {
    container: 'dds',
    width: lw,
    height: lh,
    sampleType,
    unorm16: layout.component === 'unorm16',
    georeference: null,
    nodata: null,
    endian: 'le', // DDS payloads are little-endian
    description: `DDS ${formatWords}, mip ${level} of ${h.mipCount}, slice ${slice} of ${h.arraySize}${channelWords}`,
  };
  return { header, layout, channel, start, count, bpp, formatName, level, slice };
}

/**
 * The subresource's samples as one run, where they are one (a one-channel format of 16- or 32-bit samples stored as
 * read); null for interleaved channels or samples that need widening (decodeDds reads those).
 */
export function ddsRawRun(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): RawSampleRun | null {
  const d = ddsLayout(input, where, sel, limits);
  if (d.layout.channels.length !== 1 || d.layout.component === 'float16') return null;
  return { header: d.header, offset: d.start, bytes: d.count * d.bpp, little: true, order: 'rows' };
}

/**
 * Decodes the selected subresource and channel of a DDS file. See the file header for the rules.
 * @throws FormatError for a malformed, truncated or unsupported file or selection; LimitError over the pixel limit.
 */
export function decodeDds(input: DecoderInput, where: string, sel: RasterSelection, limits: RasterLimits): DecodedRaster {
  const src = sourceOf(input, where);
  const { header, layout, channel, start, count, bpp, formatName, level, slice } = ddsLayout(src, where, sel, limits);
  checkReaderMemory(
    where,
    `DDS ${header.width}×${header.height} ${formatName} (${count * bpp} bytes read, ${count * 4} bytes of samples)`,
    count * bpp + count * 4,
  );
  const span = src.read(start, count * bpp, `DDS mip ${level} of slice ${slice}`);
  const values = extract(span, 0, count, layout, channel, src.fresh);
  return { ...header, values };
}

function pickChannel(layout: PixelLayout, formatName: string, requested: string | undefined, where: string): number {
  const choices = layout.channels.split('').join('|');
  if (requested === undefined) {
    if (layout.channels.length === 1) return 0;
    fail(where, `${formatName} has ${layout.channels.length} channels; choose one with a channel selection (${choices})`);
  }
  const idx = layout.channels.indexOf(requested.toUpperCase());
  if (requested.length !== 1 || idx < 0) {
    fail(where, `channel "${requested}" is not in ${formatName}; its channels are ${choices}`);
  }
  return idx;
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Copies one channel of `count` pixels starting at byte `start` into a fresh typed array the caller owns. */
function extract(bytes: Uint8Array, start: number, count: number, layout: PixelLayout, channel: number, owned: boolean): Uint16Array | Float32Array {
  const n = layout.channels.length;
  const cb = componentBytes(layout.component);
  const end = start + count * n * cb;
  if (!LITTLE_ENDIAN_HOST) return extractPortable(bytes.subarray(start, end), count, layout, channel);
  if (n === 1 && layout.component !== 'float16') {
    // A memcpy into a buffer of its own at offset 0, so the view is aligned and holds exactly these samples;
    // Uint8Array's slice, never a Node Buffer's (whose slice is a view of the whole file).
    const own = owned && start === 0 && bytes.byteOffset === 0 && end === bytes.buffer.byteLength ? bytes : Uint8Array.prototype.slice.call(bytes, start, end);
    return layout.component === 'float32' ? new Float32Array(own.buffer) : new Uint16Array(own.buffer);
  }
  // Read in place when aligned (no copy of the other channels), else from an aligned copy.
  const aligned = (bytes.byteOffset + start) % cb === 0;
  const src = aligned ? bytes.subarray(start, end) : Uint8Array.prototype.slice.call(bytes, start, end);
  if (cb === 4) {
    // float32 moved as 32-bit words: exact, NaN payloads included.
    const words = new Uint32Array(src.buffer, src.byteOffset, count * n);
    const out = new Uint32Array(count);
    for (let i = 0, j = channel; i < count; i++, j += n) out[i] = words[j];
    return new Float32Array(out.buffer);
  }
  const codes = new Uint16Array(src.buffer, src.byteOffset, count * n);
  if (layout.component === 'float16') return widenHalfStrided(codes, count, n, channel);
  const out = new Uint16Array(count);
  for (let i = 0, j = channel; i < count; i++, j += n) out[i] = codes[j];
  return out;
}

/** Byte-order-independent path (a big-endian host): DataView reads, one component at a time. */
function extractPortable(span: Uint8Array, count: number, layout: PixelLayout, channel: number): Uint16Array | Float32Array {
  const dv = new DataView(span.buffer, span.byteOffset, span.byteLength);
  const n = layout.channels.length;
  if (layout.component === 'float32') {
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = dv.getFloat32(4 * (i * n + channel), true);
    return out;
  }
  const codes = new Uint16Array(count);
  for (let i = 0; i < count; i++) codes[i] = dv.getUint16(2 * (i * n + channel), true);
  return layout.component === 'float16' ? widenFloat16(codes) : codes;
}

let halfBits: Uint32Array | null = null;

/** binary32 bit patterns of every binary16 value (exact: each half value is a float; NaN keeps sign and payload). */
function buildHalfTable(): Uint32Array {
  const values = new Float32Array(65536);
  const bits = new Uint32Array(values.buffer);
  for (let h = 0; h < 65536; h++) {
    const negative = (h & 0x8000) !== 0;
    const exp = (h >>> 10) & 0x1f;
    const mant = h & 0x3ff;
    if (exp === 31) {
      bits[h] = (negative ? 0x80000000 : 0) | 0x7f800000 | (mant << 13); // ±Inf, NaN with its payload
      continue;
    }
    // exp 0: zero and subnormals (mant · 2^-24); otherwise (1 + mant/1024) · 2^(exp-15).
    const v = exp === 0 ? mant * 2 ** -24 : (1 + mant / 1024) * 2 ** (exp - 15);
    values[h] = negative ? -v : v;
  }
  return bits;
}

function widenHalfStrided(codes: Uint16Array, count: number, n: number, channel: number): Float32Array {
  const t = (halfBits ??= buildHalfTable());
  const out = new Uint32Array(count);
  for (let i = 0, j = channel; i < count; i++, j += n) out[i] = t[codes[j]];
  return new Float32Array(out.buffer);
}

/** Widens float16 bit patterns to float32 values, exactly (NaN stays NaN, ±0 and ±Inf keep their sign). */
export function widenFloat16(codes: Uint16Array): Float32Array {
  return widenHalfStrided(codes, codes.length, 1, 0);
}
