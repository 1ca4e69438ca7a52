"""Independent writers of float height fields for test/float-compare.test.ts.

Usage: float_fields.py OUTDIR

Writes, with numpy, rasterio (GDAL) and the official OpenEXR bindings — none of them heightbench:
- repro-a.npy, repro-b.npy: the reproduction of the float-compare issue, a 64x64 float32 field of heights
  100..1,600 m (seeded) and the same field with three pixels changed: (col 10, row 10) by +2 m, (30, 20) by +60 m,
  (50, 40) by -60 m;
- for each writer W in npy, tif, exr: base.W, a 48x40 float32 field spanning about -900..1,600 m (so heights lie below,
  inside and above the range -500..500 m), and one file per planted pixel, low.W / inside.W / high.W, equal to the
  base except at that pixel;
manifest.json: per planted pixel its column, row, the base height there and the difference variant - base as
float64 of the stored float32 values (computed here, independently of the comparison under test).
The GeoTIFF carries its georeferencing: origin (1000, 2320) at the top-left corner, 8 m pixels, north up (rasterio's
from_origin); the .npy and .exr carry none (the test gives the same extent and row0-at-ymax).
"""

import json
import os
import sys

import numpy as np
import OpenEXR as E
import rasterio
from rasterio.transform import from_origin

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

rng = np.random.default_rng(20261202)
a = (100 + 1500 * rng.random((64, 64))).astype(np.float32)
b = a.copy()
b[10, 10] += 2
b[20, 30] += 60
b[40, 50] -= 60
np.save(os.path.join(out, "repro-a.npy"), a)
np.save(os.path.join(out, "repro-b.npy"), b)

W, H = 48, 40
yy, xx = np.mgrid[0:H, 0:W]
base = (-900 + 2500 * (xx / (W - 1)) * 0.7 + 2500 * (yy / (H - 1)) * 0.3 + rng.normal(0, 3, (H, W))).astype(np.float32)
# (column, row, difference in metres): below -500 m, inside, above 500 m; two of them far below one code of a
# -500..500 m range (15.26 mm).
planted = {"low": (3, 2, -7.5), "inside": (20, 17, 0.0004), "high": (44, 37, 0.003)}
manifest = {"width": W, "height": H, "min": float(base.min()), "max": float(base.max()), "planted": {}}
variants = {}
for name, (c, r, d) in planted.items():
    v = base.copy()
    v[r, c] = np.float32(np.float64(base[r, c]) + d)
    variants[name] = v
    manifest["planted"][name] = {
        "column": c,
        "row": r,
        "height": float(base[r, c]),
        "delta": float(np.float64(v[r, c]) - np.float64(base[r, c])),
    }
assert manifest["planted"]["low"]["height"] < -500 and manifest["planted"]["high"]["height"] > 500
assert -500 < manifest["planted"]["inside"]["height"] < 500


def write_tif(path, data):
    with rasterio.open(
        path, "w", driver="GTiff", width=W, height=H, count=1, dtype="float32", transform=from_origin(1000, 2320, 8, 8)
    ) as f:
        f.write(data, 1)


def write_exr(path, data):
    E.File({"compression": E.ZIP_COMPRESSION, "type": E.scanlineimage}, {"Y": np.ascontiguousarray(data)}).write(path)


for name, data in [("base", base), *variants.items()]:
    np.save(os.path.join(out, f"{name}.npy"), data)
    write_tif(os.path.join(out, f"{name}.tif"), data)
    write_exr(os.path.join(out, f"{name}.exr"), data)

with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
