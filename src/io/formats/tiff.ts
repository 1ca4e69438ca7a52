// Placeholder until the TIFF decoder lands (its branch replaces this file).
import { FormatError } from '../../errors.js';
import type { DecodedRaster, RasterGeoreference, RasterLimits, RasterSelection } from './raster.js';

export async function decodeTiff(_bytes: Uint8Array, where: string, _sel: RasterSelection, _limits: RasterLimits): Promise<DecodedRaster> {
  return Promise.reject(new FormatError(`${where}: tiff reading is not built yet`));
}

export function encodeTiff(_o: {
  width: number;
  height: number;
  values: Uint16Array | Float32Array;
  georeference: RasterGeoreference | null;
  nodata?: number | null;
  compression?: 'none' | 'deflate';
}): Uint8Array {
  throw new FormatError('tiff writing is not built yet');
}
