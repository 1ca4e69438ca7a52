"""Independent TIFF/GeoTIFF writers for test/format-tiff.test.ts: tifffile (with imagecodecs) and rasterio (GDAL).

Usage: tiff_write.py OUTDIR
Writes every file of the read matrix into OUTDIR, each with the samples it holds as raw little-endian bytes
(NAME.raw; float16 files get float32 samples), and prints a JSON manifest on stdout: per file the writer, its
options, dtype and size, and for GDAL-written files what rasterio itself reads back (bounds, transform, nodata).
"""

import json
import math
import os
import sys

import numpy as np
import rasterio
import tifffile
from rasterio.transform import Affine

OUT = sys.argv[1]
W, H = 53, 37  # odd sizes: partial edge tiles (16) and a short last strip (5 rows)
entries = []


def values(dtype, seed):
    """Known samples: a ramp plus noise, and the type's extremes / special values in the first row."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "u":
        a = rng.integers(0, 65536, size=(H, W), dtype=np.uint32).astype(dt)
        a[0, :4] = [0, 1, 65534, 65535]
    elif dt.kind == "i":
        a = rng.integers(-32768, 32768, size=(H, W), dtype=np.int32).astype(dt)
        a[0, :4] = [-32768, -1, 0, 32767]
    else:
        a = (rng.standard_normal((H, W)) * 1000 + np.arange(W) * 0.25).astype(dt)
        specials = [math.nan, math.inf, -math.inf, -0.0, 1e-40 if dt.itemsize >= 4 else 1e-7, 65504.0]
        a[0, : len(specials)] = np.array(specials, dtype=dt)
    return a


def json_num(v):
    if v is None:
        return None
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def record(name, writer, dtype, a, options, bands=1, **extra):
    raw = a.astype("<f4") if np.dtype(dtype) == np.float16 else a.astype("<" + np.dtype(dtype).str[1:])
    raw.tofile(os.path.join(OUT, name + ".raw"))
    entries.append(dict(file=name, writer=writer, dtype=np.dtype(dtype).name, width=W, height=H, bands=bands, options=options, **extra))


def with_rasterio(name):
    with rasterio.open(os.path.join(OUT, name)) as r:
        t = r.transform
        return dict(
            bounds=[r.bounds.left, r.bounds.bottom, r.bounds.right, r.bounds.top],
            transform=[t.a, t.b, t.c, t.d, t.e, t.f],
            nodata=json_num(r.nodata),
            area_or_point=r.tags().get("AREA_OR_POINT"),
        )


# --- tifffile: dtype × layout × compression × predictor, little- and big-endian ---------------------------------
seed = 1
for bo in ("<", ">"):
    for dtype in ("uint16", "int16", "float32", "float64"):
        floats = dtype.startswith("float")
        for layout in ("strips", "tiles"):
            for comp in ("none", "deflate", "lzw"):
                preds = [1] if comp == "none" else [1, 3 if floats else 2]
                for pred in preds:
                    a = values(dtype, seed)
                    seed += 1
                    name = f"tf_{'le' if bo == '<' else 'be'}_{dtype}_{layout}_{comp}_p{pred}.tif"
                    kw = dict(byteorder=bo, photometric="minisblack")
                    if layout == "tiles":
                        kw["tile"] = (16, 16)
                    else:
                        kw["rowsperstrip"] = 5
                    if comp != "none":
                        kw["compression"] = comp
                        kw["predictor"] = pred
                    tifffile.imwrite(os.path.join(OUT, name), a.astype(bo + np.dtype(dtype).str[1:]), **kw)
                    record(name, "tifffile", dtype, a, dict(byteorder=bo, layout=layout, compression=comp, predictor=pred))

# float16 (widened to float32 by the decoder), PackBits, BigTIFF
a = values("float16", 99)
tifffile.imwrite(os.path.join(OUT, "tf_float16_deflate_p3.tif"), a, compression="deflate", predictor=3, tile=(16, 16), photometric="minisblack")
record("tf_float16_deflate_p3.tif", "tifffile", "float16", a, dict(layout="tiles", compression="deflate", predictor=3))
a = values("uint16", 100)
tifffile.imwrite(os.path.join(OUT, "tf_uint16_packbits.tif"), a, compression="packbits", rowsperstrip=7, photometric="minisblack")
record("tf_uint16_packbits.tif", "tifffile", "uint16", a, dict(layout="strips", compression="packbits", predictor=1))
a = values("float32", 101)
tifffile.imwrite(os.path.join(OUT, "tf_bigtiff_float32.tif"), a, bigtiff=True, compression="deflate", predictor=3, tile=(16, 16), photometric="minisblack")
record("tf_bigtiff_float32.tif", "tifffile", "float32", a, dict(layout="tiles", compression="deflate", predictor=3, bigtiff=True))

# multi-band: RGB uint16 chunky and planar (band 2 = G is what the test selects), 2-band float32 planar
rgb = np.stack([values("uint16", 200 + k) for k in range(3)], axis=-1)
tifffile.imwrite(os.path.join(OUT, "tf_rgb_contig.tif"), rgb, photometric="rgb", planarconfig="contig", compression="lzw", predictor=2, rowsperstrip=4)
record("tf_rgb_contig.tif", "tifffile", "uint16", rgb[:, :, 1], dict(layout="strips", compression="lzw", predictor=2), bands=3)
tifffile.imwrite(os.path.join(OUT, "tf_rgb_planar.tif"), np.moveaxis(rgb, -1, 0), photometric="rgb", planarconfig="separate", compression="deflate", tile=(16, 16))
record("tf_rgb_planar.tif", "tifffile", "uint16", rgb[:, :, 1], dict(layout="tiles", compression="deflate", predictor=1), bands=3)

# refusals: 8-bit, uint32, int32, complex, ZSTD, LERC (GDAL below)
tifffile.imwrite(os.path.join(OUT, "bad_uint8.tif"), np.zeros((H, W), np.uint8), photometric="minisblack")
tifffile.imwrite(os.path.join(OUT, "bad_uint32.tif"), np.zeros((H, W), np.uint32), photometric="minisblack")
tifffile.imwrite(os.path.join(OUT, "bad_int32.tif"), np.zeros((H, W), np.int32), photometric="minisblack")
tifffile.imwrite(os.path.join(OUT, "bad_complex64.tif"), np.zeros((H, W), np.complex64), photometric="minisblack")
tifffile.imwrite(os.path.join(OUT, "bad_zstd.tif"), values("uint16", 300), compression="zstd", photometric="minisblack")

# --- rasterio / GDAL: dtype × layout × compression × predictor, georeferenced, with nodata ------------------------
north = Affine(2.5, 0.0, 500000.0, 0.0, -2.5, 4100000.0)


def gdal_write(name, a, transform, nodata=None, crs="EPSG:32633", point=False, **opts):
    profile = dict(driver="GTiff", width=a.shape[1], height=a.shape[0], count=1, dtype=a.dtype.name, transform=transform, crs=crs, nodata=nodata, **opts)
    with rasterio.open(os.path.join(OUT, name), "w", **profile) as d:
        if point:
            d.update_tags(AREA_OR_POINT="Point")
        d.write(a, 1)


for dtype in ("uint16", "int16", "float32", "float64"):
    floats = dtype.startswith("float")
    for layout in ("strips", "tiles"):
        for comp in ("none", "deflate", "lzw"):
            preds = [1] if comp == "none" else ([1, 2, 3] if floats else [1, 2])
            for pred in preds:
                a = values(dtype, seed)
                seed += 1
                name = f"gd_{dtype}_{layout}_{comp}_p{pred}.tif"
                opts = dict(compress=comp.upper() if comp != "none" else "NONE")
                if comp != "none":
                    opts["predictor"] = pred
                if layout == "tiles":
                    opts.update(tiled=True, blockxsize=16, blockysize=16)
                else:
                    opts.update(blockysize=5)
                nodata = -9999.0 if floats else (65535 if dtype == "uint16" else -32768)
                gdal_write(name, a, north, nodata=nodata, **opts)
                record(name, "rasterio", dtype, a, dict(layout=layout, compression=comp, predictor=pred), **with_rasterio(name))

cases = {
    # south-up: positive y step; GDAL writes a ModelTransformation
    "gd_south_up.tif": dict(transform=Affine(2.0, 0.0, -100.0, 0.0, 3.0, 50.0), nodata=float("nan")),
    # PixelIsPoint: GDAL writes the tiepoint at the centre of pixel (0,0) and reads the area extent back
    "gd_point.tif": dict(transform=Affine(10.0, 0.0, 1000.0, 0.0, -10.0, 2000.0), point=True, nodata=float("-inf")),
    # south-up and PixelIsPoint together: a ModelTransformation tied at the centre of pixel (0,0)
    "gd_south_point.tif": dict(transform=Affine(4.0, 0.0, 10.0, 0.0, 2.0, -30.0), point=True, nodata=-9999.0),
    # no CRS, tiepoint far from the origin, nodata +inf
    "gd_nocrs.tif": dict(transform=Affine(0.5, 0.0, -3.25, 0.0, -0.25, 7.75), crs=None, nodata=float("inf")),
}
for name, kw in cases.items():
    a = values("float32", seed)
    seed += 1
    gdal_write(name, a, kw.pop("transform"), compress="DEFLATE", predictor=3, tiled=True, blockxsize=16, blockysize=16, **kw)
    record(name, "rasterio", "float32", a, dict(layout="tiles", compression="deflate", predictor=3), **with_rasterio(name))

gdal_write("bad_rotated.tif", values("float32", 400), Affine(2.0, 0.5, 0.0, 0.25, -2.0, 100.0))
gdal_write("bad_lerc.tif", values("float32", 401), north, compress="LERC")

# a tiepoint at raster (10, 5) instead of (0, 0), written tag by tag; rasterio says what extent it means
a = values("float32", 501)
geo_tags = [
    (33550, "d", 3, (2.0, 3.0, 0.0), False),
    (33922, "d", 6, (10.0, 5.0, 0.0, 1000.0, 2000.0, 0.0), False),
    (34735, "H", 8, (1, 1, 0, 1, 1025, 0, 1, 1), False),
]
tifffile.imwrite(os.path.join(OUT, "tf_tiepoint_offset.tif"), a, photometric="minisblack", extratags=geo_tags)
record("tf_tiepoint_offset.tif", "tifffile", "float32", a, dict(layout="strips", compression="none", predictor=1), **with_rasterio("tf_tiepoint_offset.tif"))

# both georeferencings, disagreeing: pixel scale + tiepoint say x step 2, the transformation x step 4 (refused)
both_tags = geo_tags + [(34264, "d", 16, (4.0, 0.0, 0.0, 980.0, 0.0, -3.0, 0.0, 2015.0, 0, 0, 0, 0, 0, 0, 0, 1.0), False)]
tifffile.imwrite(os.path.join(OUT, "bad_both_georef.tif"), values("float32", 502), photometric="minisblack", extratags=both_tags)

# a raster without any geo tags (tifffile) for georeference null
a = values("uint16", 500)
tifffile.imwrite(os.path.join(OUT, "tf_nogeo.tif"), a, photometric="minisblack")
record("tf_nogeo.tif", "tifffile", "uint16", a, dict(layout="strips", compression="none", predictor=1))

json.dump(entries, sys.stdout)
