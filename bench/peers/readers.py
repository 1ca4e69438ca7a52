#!/usr/bin/python3
"""Peers of `heightbench info` and of the reader files the readers bench uses (issue 41).

write DIR N   writes every file the bench times into DIR, each with the library a researcher would use: GeoTIFFs with
              rasterio (GDAL) — tiled and striped, deflate and LZW, predictors 2 (on float32 the horizontal
              difference of the samples) and 3 —, .npy with numpy (C and Fortran order, both byte orders), EXR with the
              OpenEXR bindings (ZIP, ZIPS, PIZ, RLE, NONE; HALF and FLOAT; scanline and tiled), DDS R16_UNORM and
              R32_FLOAT by Microsoft's documented header layout. Prints the file names, one a line.
read KIND FILE reads FILE as that tool does and prints the finite min and max (what `info` states): the whole process
              is the peer's time. KIND: tif (rasterio), npy (numpy.load), exr (OpenEXR), dds-r16 / dds-r32 (numpy on
              the payload after the 148-byte DX10 header).
near REF.r16 OUT.npy  writes, with numpy, a float32 reconstruction close to the R16 reference REF (range from its
              sidecar): each pixel its code's metres plus a uniform error within 0.45 code, and 1 % of the pixels off by
              up to 3 codes besides (seeded, so the same bytes each time) — the comparison a researcher usually runs,
              beside the bench's unrelated pair.
"""
import sys


def write(d, n):
    import struct
    from pathlib import Path

    import numpy as np
    import OpenEXR
    import rasterio
    from rasterio.transform import from_origin

    out = Path(d)
    out.mkdir(parents=True, exist_ok=True)
    y, x = np.mgrid[0:n, 0:n].astype(np.float32)
    a = (np.sin(x / 300) * np.cos(y / 200) * 400 + np.sin(x / 17 + y / 23) * 5).astype(np.float32)
    names = []
    for tiled in (True, False):
        for comp in ("deflate", "lzw"):
            for pred in (2, 3):
                name = f"{'tiled' if tiled else 'striped'}-{comp}-p{pred}.tif"
                extra = dict(tiled=True, blockxsize=256, blockysize=256) if tiled else dict(tiled=False, blockysize=16)
                with rasterio.open(out / name, "w", driver="GTiff", width=n, height=n, count=1, dtype="float32", compress=comp,
                                   predictor=pred, transform=from_origin(-1024, 1024, 2048 / n, 2048 / n), **extra) as ds:
                    ds.write(a, 1)
                names.append(name)
    for order in ("C", "F"):
        for endian in ("<", ">"):
            name = f"{order}-{'le' if endian == '<' else 'be'}.npy"
            np.save(out / name, np.asarray(a.astype(endian + "f4"), order=order))
            names.append(name)
    comps = {"zip": OpenEXR.ZIP_COMPRESSION, "zips": OpenEXR.ZIPS_COMPRESSION, "piz": OpenEXR.PIZ_COMPRESSION,
             "rle": OpenEXR.RLE_COMPRESSION, "none": OpenEXR.NO_COMPRESSION}
    for cname, c in comps.items():
        for ptype, dtype in (("half", np.float16), ("float", np.float32)):
            for layout in ("scanline", "tiled"):
                name = f"{layout}-{cname}-{ptype}.exr"
                header = {"compression": c, "type": OpenEXR.scanlineimage if layout == "scanline" else OpenEXR.tiledimage}
                if layout == "tiled":
                    t = OpenEXR.TileDescription()
                    t.xSize, t.ySize, t.mode = 64, 64, OpenEXR.ONE_LEVEL
                    header["tiles"] = t
                OpenEXR.File(header, {"Y": a.astype(dtype)}).write(str(out / name))
                names.append(name)
    DDSD = 0x1 | 0x2 | 0x4 | 0x8 | 0x1000
    for fmt, code, arr, bpp in (("r16", 56, np.clip((a + 500) / 1000 * 65535, 0, 65535).astype("<u2"), 2), ("r32", 41, a.astype("<f4"), 4)):
        pf = struct.pack("<II4sIIIII", 32, 0x4, b"DX10", 0, 0, 0, 0, 0)
        header = struct.pack("<IIIIIII44s32sIIIII", 124, DDSD, n, n, n * bpp, 0, 1, b"\0" * 44, pf, 0x1000, 0, 0, 0, 0)
        dx10 = struct.pack("<IIIII", code, 3, 0, 1, 0)
        name = f"{fmt}.dds"
        (out / name).write_bytes(b"DDS " + header + dx10 + arr.tobytes())
        names.append(name)
    print("\n".join(names))


def read(kind, path):
    import numpy as np

    if kind == "tif":
        import rasterio

        with rasterio.open(path) as ds:
            a = ds.read(1)
    elif kind == "npy":
        a = np.load(path)
    elif kind == "exr":
        import OpenEXR

        with OpenEXR.File(path) as f:
            a = f.channels()["Y"].pixels
    elif kind in ("dds-r16", "dds-r32"):
        a = np.fromfile(path, "<u2" if kind == "dds-r16" else "<f4", offset=148)
    else:
        raise SystemExit(f"unknown kind {kind}")
    f = a[np.isfinite(a)]
    print(float(f.min()), float(f.max()))


def near(ref_path, out_path):
    import json

    import numpy as np

    side = json.load(open(ref_path + ".json"))
    lo, hi = side["encoding"]["range"]["min"], side["encoding"]["range"]["max"]
    rows, columns = side["grid"]["rows"], side["grid"]["columns"]
    scale = (hi - lo) / 65535
    codes = np.fromfile(ref_path, "<u2", count=rows * columns)
    rng = np.random.default_rng(7)
    err = rng.uniform(-0.45, 0.45, codes.size)
    off = rng.random(codes.size) < 0.01
    err[off] += rng.integers(-3, 4, int(off.sum()))
    np.save(out_path, ((codes + err) * scale + lo).astype("<f4").reshape(rows, columns))


if __name__ == "__main__":
    if sys.argv[1] == "near":
        near(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]))
    else:
        read(sys.argv[2], sys.argv[3])
