"""Independent TIFF/GeoTIFF readers for test/format-tiff.test.ts: rasterio (GDAL) and tifffile.

Usage: tiff_read.py FILE...
For each FILE writes the samples band 1 holds as raw little-endian bytes, as rasterio read them (FILE.rio.raw) and
as tifffile read them (FILE.tf.raw), and prints a JSON list on stdout: rasterio's size, dtype, bounds, transform,
nodata, CRS (WKT or null), AREA_OR_POINT and any GDAL warnings it logged; tifffile's compression, predictor,
tiling, byte order and dtype.
"""

import json
import logging
import math
import sys

import numpy as np
import rasterio
import tifffile


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def json_num(v):
    if v is None:
        return None
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


out = []
for path in sys.argv[1:]:
    handler = Collect()
    logging.getLogger("rasterio").addHandler(handler)
    with rasterio.open(path) as r:
        a = r.read(1)
        a.astype(a.dtype.newbyteorder("<")).tofile(path + ".rio.raw")
        t = r.transform
        rio = dict(
            width=r.width,
            height=r.height,
            count=r.count,
            dtype=r.dtypes[0],
            bounds=[r.bounds.left, r.bounds.bottom, r.bounds.right, r.bounds.top],
            transform=[t.a, t.b, t.c, t.d, t.e, t.f],
            nodata=json_num(r.nodata),
            crs=None if r.crs is None else r.crs.to_wkt(),
            area_or_point=r.tags().get("AREA_OR_POINT"),
        )
    logging.getLogger("rasterio").removeHandler(handler)
    with tifffile.TiffFile(path) as tf:
        page = tf.pages[0]
        b = page.asarray()
        b.astype(b.dtype.newbyteorder("<")).tofile(path + ".tf.raw")
        tif = dict(
            compression=int(page.compression),
            predictor=int(page.predictor),
            tiled=bool(page.is_tiled),
            tile=list(page.tile) if page.is_tiled else None,
            rowsperstrip=int(page.rowsperstrip),
            byteorder=tf.byteorder,
            dtype=str(b.dtype),
            shape=list(b.shape),
            pages=len(tf.pages),
        )
    out.append(dict(file=path, rasterio=rio, tifffile=tif, warnings=handler.messages))

json.dump(out, sys.stdout)
