"""Independent OpenEXR writer for test/format-exr.test.ts.

Usage: exr_write.py OUTDIR

Writes, with the official OpenEXR 3.5 Python bindings (and OpenImageIO for one MIP-mapped file):
- {scanline,tiled}-{half,float}-{none,rle,zips,zip,piz}.exr: channels B, G, R, Y of a seeded 123x77 field, data
  window (-7,13)-(115,89), display window (0,0)-(199,99), tiles 32x16 (partial tiles and blocks at both edges);
- mixed-{comp}.exr (scanline): R FLOAT, G HALF, B UINT, Y HALF, to check channel offsets across sample sizes;
- wide-{half,float}-piz.exr: 517x64 of random bit patterns (every half / many float NaNs, subnormals), so that PIZ
  blocks hold > 2^14 distinct values (the 16-bit wavelet path);
- mip-float-zip.exr: a MIPMAP_LEVELS tiled file (OpenImageIO), level 0 = the float field;
- refusal inputs: pxr24.exr, b44.exr, dwaa.exr, multipart.exr, subsampled.exr, uint-y.exr, noyr.exr.
Expected samples go to expect-*.u32: float32 bit patterns, little-endian, row 0 = the data window's top row; HALF
samples are widened by numpy (float16 -> float32), independently of the decoder under test.
manifest.json lists every decodable file with its channels and their expected-value files.
"""

import json
import os
import sys

import numpy as np
import OpenEXR as E
import OpenImageIO as oiio

W, H = 123, 77
X0, Y0 = -7, 13
DATA_WINDOW = ((X0, Y0), (X0 + W - 1, Y0 + H - 1))
DISPLAY_WINDOW = ((0, 0), (199, 99))
COMPRESSIONS = {
    "none": E.NO_COMPRESSION,
    "rle": E.RLE_COMPRESSION,
    "zips": E.ZIPS_COMPRESSION,
    "zip": E.ZIP_COMPRESSION,
    "piz": E.PIZ_COMPRESSION,
}


def field(rng, w, h, scale):
    """Terrain-like smooth part plus noise spanning many magnitudes, negatives included."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    smooth = scale * (np.sin(xx / 17.0) * np.cos(yy / 11.0)) + 0.5 * xx - yy
    noise = rng.standard_normal((h, w)) * 10.0 ** rng.uniform(-4, 1.5, (h, w))
    return smooth + noise


def float_channels(seed):
    rng = np.random.default_rng(seed)
    y = field(rng, W, H, 100.0).astype(np.float32)
    flat = y.reshape(-1).view(np.uint32)
    specials = [0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000, 0x00000001, 0x00400000, 0xFF7FFFFF, 0x7FA00001, 0xFFC00123]
    flat[: len(specials)] = specials
    r = rng.uniform(-1, 1, (H, W)).astype(np.float32)
    g = (rng.standard_normal((H, W)) * 10.0 ** rng.uniform(-30, 30, (H, W))).astype(np.float32)
    b = rng.integers(0, 2**32, (H, W), dtype=np.uint64).astype(np.uint32).view(np.float32)
    return {"Y": y, "R": r, "G": g, "B": b}


def half_channels(seed):
    rng = np.random.default_rng(seed)
    y = field(rng, W, H, 30.0).astype(np.float16)
    flat = y.reshape(-1).view(np.uint16)
    specials = [0x7E00, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x03FF, 0x7BFF, 0xFBFF, 0x7C01, 0xFE37]
    flat[: len(specials)] = specials
    r = rng.uniform(-1, 1, (H, W)).astype(np.float16)
    g = (rng.standard_normal((H, W)) * 10.0 ** rng.uniform(-7, 4.5, (H, W))).astype(np.float16)
    b = rng.integers(0, 2**16, (H, W), dtype=np.uint32).astype(np.uint16).view(np.float16)
    return {"Y": y, "R": r, "G": g, "B": b}


def expect_bits(a):
    """float32 bit patterns of what a decoder must return for this channel (HALF widened by numpy)."""
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype("<u4")


def save_expect(out, name, a):
    path = os.path.join(out, name)
    expect_bits(a).tofile(path)
    return name


def tiles(x, y, mode=E.ONE_LEVEL):
    t = E.TileDescription()
    t.xSize = x
    t.ySize = y
    t.mode = mode
    return t


def write(out, name, header, channels):
    # The bindings replace the dict's arrays by Channel objects: hand them a copy.
    E.File(dict(header), dict(channels)).write(os.path.join(out, name))


def main():
    out = sys.argv[1]
    manifest = []
    chans = {"float": float_channels(20240601), "half": half_channels(20240602)}
    expect = {}
    for ptype, cs in chans.items():
        expect[ptype] = {c: save_expect(out, f"expect-{ptype}-{c}.u32", a) for c, a in cs.items()}

    for layout in ("scanline", "tiled"):
        for ptype, cs in chans.items():
            for cname, comp in COMPRESSIONS.items():
                name = f"{layout}-{ptype}-{cname}.exr"
                header = {"compression": comp, "dataWindow": DATA_WINDOW, "displayWindow": DISPLAY_WINDOW}
                if layout == "tiled":
                    header["type"] = E.tiledimage
                    header["tiles"] = tiles(32, 16)
                    header["lineOrder"] = E.RANDOM_Y if ptype == "float" else E.DECREASING_Y
                else:
                    header["type"] = E.scanlineimage
                    header["lineOrder"] = E.DECREASING_Y if ptype == "float" else E.INCREASING_Y
                write(out, name, header, cs)
                manifest.append(
                    {
                        "file": name,
                        "layout": layout,
                        "ptype": ptype,
                        "compression": cname.upper(),
                        "width": W,
                        "height": H,
                        "lineOrder": ["INCREASING_Y", "DECREASING_Y", "RANDOM_Y"][int(header["lineOrder"])],
                        "channels": expect[ptype],
                    }
                )

    # Mixed sample sizes: R FLOAT, G HALF, B UINT, Y HALF (stored B, G, R, Y).
    fc, hc = chans["float"], chans["half"]
    uint = ((np.arange(W * H, dtype=np.uint64) * 2654435761) % 2**32).astype(np.uint32).reshape(H, W)
    mixed = {"R": fc["R"], "G": hc["G"], "B": uint, "Y": hc["Y"]}
    for cname, comp in COMPRESSIONS.items():
        name = f"mixed-{cname}.exr"
        write(out, name, {"compression": comp, "dataWindow": DATA_WINDOW, "displayWindow": DISPLAY_WINDOW}, mixed)
        manifest.append(
            {
                "file": name,
                "layout": "scanline",
                "ptype": "mixed",
                "compression": cname.upper(),
                "width": W,
                "height": H,
                "lineOrder": "INCREASING_Y",
                "channels": {"R": expect["float"]["R"], "G": expect["half"]["G"], "Y": expect["half"]["Y"]},
                "uint": ["B"],
            }
        )

    # Random bit patterns, wide enough that one PIZ block holds more than 2^14 distinct 16-bit values.
    rng = np.random.default_rng(7)
    ww, wh = 517, 64
    wide = {
        "half": {"Y": rng.integers(0, 2**16, (wh, ww), dtype=np.uint32).astype(np.uint16).view(np.float16)},
        "float": {"Y": rng.integers(0, 2**32, (wh, ww), dtype=np.uint64).astype(np.uint32).view(np.float32)},
    }
    for ptype, cs in wide.items():
        for layout in ("scanline", "tiled"):
            name = f"wide-{layout}-{ptype}-piz.exr"
            header = {"compression": E.PIZ_COMPRESSION}
            if layout == "tiled":
                header["type"] = E.tiledimage
                header["tiles"] = tiles(256, 128)
            write(out, name, header, cs)
            manifest.append(
                {
                    "file": name,
                    "layout": layout,
                    "ptype": ptype,
                    "compression": "PIZ",
                    "width": ww,
                    "height": wh,
                    "lineOrder": "INCREASING_Y",
                    "channels": {"Y": save_expect(out, f"expect-wide-{ptype}.u32", cs["Y"])},
                }
            )

    # MIPMAP_LEVELS tiled file written by OpenImageIO; level 0 is the float field, coarser levels a constant.
    def mip_spec(w, h):
        s = oiio.ImageSpec(w, h, 1, "float")
        s.channelnames = ("Y",)
        s.tile_width, s.tile_height = 32, 16
        s.attribute("compression", "zip")
        s.attribute("textureformat", "Plain Texture")
        return s

    mip_path = os.path.join(out, "mip-float-zip.exr")
    o = oiio.ImageOutput.create(mip_path)
    assert o.open(mip_path, mip_spec(W, H), "create"), o.geterror()
    assert o.write_image(fc["Y"].reshape(H, W, 1)), o.geterror()
    w, h, levels = W, H, 1
    while w > 1 or h > 1:
        w, h, levels = max(1, w // 2), max(1, h // 2), levels + 1
        assert o.open(mip_path, mip_spec(w, h), "appendmiplevel"), o.geterror()
        assert o.write_image(np.full((h, w, 1), 0.25 * levels, dtype=np.float32)), o.geterror()
    o.close()
    manifest.append(
        {
            "file": "mip-float-zip.exr",
            "layout": "tiled",
            "ptype": "float",
            "compression": "ZIP",
            "width": W,
            "height": H,
            "lineOrder": "INCREASING_Y",
            "channels": {"Y": expect["float"]["Y"]},
            "levels": levels,
        }
    )

    # Inputs the decoder must refuse.
    small = {"Y": fc["Y"]}
    write(out, "pxr24.exr", {"compression": E.PXR24_COMPRESSION}, small)
    write(out, "b44.exr", {"compression": E.B44_COMPRESSION}, {"Y": hc["Y"]})
    write(out, "dwaa.exr", {"compression": E.DWAA_COMPRESSION}, small)
    E.File([E.Part({}, {"Y": fc["Y"]}), E.Part({}, {"Z": fc["R"]})]).write(os.path.join(out, "multipart.exr"))
    plane = np.ones((78, 124), dtype=np.float32)
    write(out, "subsampled.exr", {"compression": E.ZIP_COMPRESSION}, {"Y": plane, "C": E.Channel(plane.copy(), 2, 2)})
    write(out, "uint-y.exr", {"compression": E.ZIP_COMPRESSION}, {"Y": mixed["B"]})
    write(out, "noyr.exr", {"compression": E.ZIP_COMPRESSION}, {"Z": fc["Y"], "depth": fc["R"]})

    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"openexr": E.__version__, "oiio": oiio.__version__, "files": manifest}, f, indent=1)


if __name__ == "__main__":
    main()
