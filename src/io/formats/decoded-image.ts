/**
 * A decoded image: what every outside-container decoder (DDS, OpenEXR, TIFF/GeoTIFF, NumPy .npy) returns: one 2-D band of samples as
 * the file stores them, plus whatever the file itself says about its grid. Decoders do no file I/O (the caller reads
 * the bytes through the hardened reader, src/io/read-input.ts) and no interpretation: mapping samples to heights and
 * rows to world y is the caller's (src/io/outside.ts), with conventions taken from the file, from flags or
 * from stated defaults — never guessed.
 *
 * Index rule: value index = row · width + column, row 0 = the first row the file stores (the top of the image for
 * DDS, EXR and TIFF; a[0, :] for a C- or Fortran-order .npy — Fortran order is transposed into this layout).
 */

/** The sample types a decoder can hand back; anything else is refused by the decoder, naming the type. */
export type RasterSampleType = 'uint16' | 'int16' | 'float16' | 'float32' | 'float64';

export type RasterValues = Uint16Array | Int16Array | Float32Array | Float64Array;

/** Georeferencing the file carries (GeoTIFF model tags): the extent of the pixel areas and the row direction. */
export interface RasterGeoreference {
  /** World x of the left edge of column 0's pixel area (texel-centre grid), metres or map units. */
  readonly xmin: number;
  /** World y of the lower edge of the last (or first, per rowDirection) row's pixel area. */
  readonly ymin: number;
  readonly sizeX: number;
  readonly sizeY: number;
  readonly rowDirection: 'row0-at-ymin' | 'row0-at-ymax';
  /** Where the tags came from, for the report (e.g. "ModelPixelScale + ModelTiepoint, PixelIsArea"). */
  readonly source: string;
}

export interface DecodedRaster {
  readonly container: 'dds' | 'exr' | 'tiff' | 'npy';
  readonly width: number;
  readonly height: number;
  readonly sampleType: RasterSampleType;
  /**
   * The samples, row-major from the first stored row. float16 samples are widened to Float32Array exactly;
   * uint16 → Uint16Array, int16 → Int16Array, float32 → Float32Array, float64 → Float64Array.
   */
  readonly values: RasterValues;
  /** True when the format itself says integer samples are UNORM16 codes (DDS R16_UNORM / L16). */
  readonly unorm16: boolean;
  /** GeoTIFF georeferencing, or null when the file carries none. */
  readonly georeference: RasterGeoreference | null;
  /** GDAL_NODATA (or another no-data tag), or null; samples equal to it are read as NaN by the caller. */
  readonly nodata: number | null;
  /** What was selected and how, for the report: format name, channel, mip level, slice, compression, data window. */
  readonly description: string;
  /** The byte order the file stores its samples in (what `info` states and a sidecar must agree with). */
  readonly endian: 'le' | 'be';
}

/** Everything a decoder states about a raster but its samples: what it knows once its headers are read. */
export type RasterHeader = Omit<DecodedRaster, 'values'>;

/**
 * A raster whose samples the file stores as one contiguous run of bytes, without compression or interleaved channels
 * (a .npy array, a one-channel DDS subresource): what a streaming reader (`info`'s summary) reads in windows instead
 * of decoding into one array. The decoder's header checks have passed when it hands this back.
 */
export interface RawSampleRun {
  readonly header: RasterHeader;
  /** Byte offset and length of the run in the file. */
  readonly offset: number;
  readonly bytes: number;
  /** Byte order of the stored samples. */
  readonly little: boolean;
  /** 'rows': the run is in sample order (row 0 first); 'columns': column-major (a Fortran-order array). */
  readonly order: 'rows' | 'columns';
}

/** Selections a container may offer; each decoder refuses a selection it does not have, naming the choices. */
export interface RasterSelection {
  /** DDS: R|G|B|A for multi-channel formats; EXR: a channel name (default Y, else R). */
  readonly channel?: string;
  /** DDS mip level (default 0). */
  readonly level?: number;
  /** DDS array slice (default 0). */
  readonly slice?: number;
}

/** Bounds the decoders enforce before allocating: the largest width × height they will decode. */
export interface RasterLimits {
  readonly pixelLimit: number;
}
