// Placeholder until the Exr decoder lands (its branch replaces this file).
import { FormatError } from '../../errors.js';
import type { DecodedRaster, RasterLimits, RasterSelection } from './raster.js';

export function decodeExr(_bytes: Uint8Array, where: string, _sel: RasterSelection, _limits: RasterLimits): DecodedRaster {
  throw new FormatError(`${where}: exr reading is not built yet`);
}
