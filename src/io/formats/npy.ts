// Placeholder until the Npy decoder lands (its branch replaces this file).
import { FormatError } from '../../errors.js';
import type { DecodedRaster, RasterLimits, RasterSelection } from './raster.js';

export function decodeNpy(_bytes: Uint8Array, where: string, _sel: RasterSelection, _limits: RasterLimits): DecodedRaster {
  throw new FormatError(`${where}: npy reading is not built yet`);
}

export function encodeNpy(_values: Uint16Array | Int16Array | Float32Array | Float64Array, _width: number, _height: number): Uint8Array {
  throw new FormatError('npy writing is not built yet');
}
