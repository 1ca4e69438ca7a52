#!/usr/bin/python3
"""The numpy (+ rasterio) script a researcher would write instead of `heightbench compare GEN REF` (issue 41):
read both fields, quantize the generated one to the reference's R16 codes (range from the reference's sidecar), then
the count of differing codes, the histogram of code differences (-64..64, the tails clamped) and the RMS in metres.
GEN: an .r16 (raw little-endian codes), a GeoTIFF (rasterio; north-up rows flipped to row 0 at y min) or an .npy.
Usage: compare_peer.py GEN REF.r16 -> prints JSON {differing, rms, histogram}
"""
import json
import sys

import numpy as np

gen_path, ref_path = sys.argv[1], sys.argv[2]
side = json.load(open(ref_path + ".json"))
lo, hi = side["encoding"]["range"]["min"], side["encoding"]["range"]["max"]
scale = (hi - lo) / 65535
ref = np.fromfile(ref_path, "<u2").astype(np.int32)
if gen_path.endswith(".r16"):
    q = np.fromfile(gen_path, "<u2").astype(np.int32)
    gen_m = q * scale + lo
else:
    if gen_path.endswith(".npy"):
        h = np.load(gen_path)
    else:
        import rasterio

        with rasterio.open(gen_path) as ds:
            h = np.flipud(ds.read(1))
    gen_m = h.astype(np.float64).ravel()
    q = np.clip(np.floor((gen_m - lo) / scale + 0.5), 0, 65535).astype(np.int32)
dq = q - ref
hist = np.bincount(np.clip(dq, -64, 64) + 64, minlength=129)
rms = float(np.sqrt(np.mean((gen_m - (ref * scale + lo)) ** 2)))
print(json.dumps({"differing": int(np.count_nonzero(dq)), "rms": rms, "histogram": hist.tolist()}))
