/**
 * `heightbench/formats`: the raw codecs, without sidecars — R16 (little/big endian), R32 (float32), PNG16 (16-bit
 * greyscale; the decoder refuses hostile files before work) — and the atomic file writer (temp then rename). Most
 * users want readHeightfieldFile / writeHeightfieldFile from the package root, which read and write the sidecar too.
 * The outside containers' decoders are here as pure functions over bytes (one band of stored samples, no conventions
 * applied): DDS, OpenEXR, TIFF/GeoTIFF (asynchronous), NumPy .npy; and the GeoTIFF and .npy encoders.
 * The sidecar-aware readers and writers are also here under names that say which containers they take
 * (readOwnHeightfieldFile: .r16, .png, .r32; readAnyHeightfieldFile: every container, asynchronous); the root's
 * readHeightfieldFile and readHeightfieldFileAsync are the same functions.
 */
export { decodeDds } from '../io/formats/dds.js';
export { decodeExr, readExrHeader } from '../io/formats/exr.js';
export { decodeTiff, encodeTiff } from '../io/formats/tiff.js';
export { decodeNpy, encodeNpy } from '../io/formats/npy.js';
export type { DecodedRaster, RasterGeoreference, RasterLimits, RasterSelection, RasterSampleType } from '../io/formats/decoded-image.js';
export { decodeR16, encodeR16, inferSquareR16Side } from '../io/r16.js';
export { countNonFinite, decodeR32, encodeR32 } from '../io/r32.js';
export { decodePng16, encodePng16, readPngHeader } from '../io/png16.js';
export type { PngHeader } from '../io/png16.js';
export { writeFileAtomic } from '../io/atomic.js';
export { PRODUCER_NAME } from '../version.js';
export { encodeHeightfield } from '../core/heightfield.js';
export { containerForPath } from '../io/containers.js';
export { readAnyHeightfieldFile, readOwnHeightfieldFile, writeAnyHeightfieldFile, writeOwnHeightfieldFile } from '../io/heightfield-file.js';
export { SIDECAR_FORMAT, SIDECAR_VERSION, parseSidecar, sidecarPathFor } from '../io/sidecar.js';
export type { Container, Endian, HeightEncoding } from '../io/sidecar.js';
