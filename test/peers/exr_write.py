"""Independent OpenEXR writer for test/format-exr.test.ts.

Usage: exr_write.py OUTDIR

Writes, with the official OpenEXR 3.5 Python bindings (and OpenImageIO for one MIP-mapped file):
- {scanline,tiled}-{half,float}-{none,rle,zips,zip,piz}.exr: channels B, G, R, Y of a seeded 251x197 field, data
  window (-7,13)-(243,209), display window (0,0)-(299,199), tiles 96x48 (partial tiles and blocks at both edges;
  PIZ needs blocks this large to compress at all, its bitmap alone can take 8 KiB);
- mixed-{comp}.exr (scanline): R FLOAT, G HALF, B UINT, Y HALF, to check channel offsets across sample sizes;
- wide-{scanline,tiled}-{half,float}-piz.exr: 2011x40 bit patterns sweeping smoothly (plus noise) through the
  16-bit range, NaN payloads included, so that PIZ blocks hold > 2^14 distinct 16-bit values (the 16-bit wavelet
  path) and still compress;
- incompressible-{rle,zips,zip,piz}.exr: random bit patterns, whose blocks OpenEXR stores uncompressed;
- mip-float-zip.exr: a MIPMAP_LEVELS tiled file (OpenImageIO), level 0 = the float field; rip-half-piz.exr: a
  RIPMAP_LEVELS ROUND_UP file from the bindings (level 0 only);
- rgb.exr (no Y: the default is R), and refusal inputs: pxr24.exr, b44.exr, dwaa.exr, multipart.exr,
  subsampled.exr, uint-y.exr, noyr.exr.
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

W, H = 251, 197
X0, Y0 = -7, 13
DATA_WINDOW = ((X0, Y0), (X0 + W - 1, Y0 + H - 1))
DISPLAY_WINDOW = ((0, 0), (299, 199))
COMPRESSIONS = {
    "none": E.NO_COMPRESSION,
    "rle": E.RLE_COMPRESSION,
    "zips": E.ZIPS_COMPRESSION,
    "zip": E.ZIP_COMPRESSION,
    "piz": E.PIZ_COMPRESSION,
}


def field(rng, w, h, scale, noise):
    """Terrain-like smooth part (negatives included) plus Gaussian noise of the given amplitude."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    smooth = scale * (np.sin(xx / 17.0) * np.cos(yy / 11.0)) + 0.5 * xx - yy
    # A hole filled with zeros (as render targets clear to 0) gives the byte runs RLE needs.
    v = smooth + noise * rng.standard_normal((h, w))
    return np.where(v < -0.5 * scale, 0.0, v)


def sprinkle(rng, a, bits_dtype, fraction):
    """Replaces a fraction of the samples by random bit patterns (NaN payloads, subnormals, infinities...)."""
    flat = a.reshape(-1).view(bits_dtype)
    n = int(flat.size * fraction)
    at = rng.choice(flat.size, n, replace=False)
    top = 2**32 if bits_dtype == np.uint32 else 2**16
    flat[at] = rng.integers(0, top, n, dtype=np.uint64).astype(bits_dtype)
    return a


def float_channels(seed):
    # Compressible enough that ZIP/RLE/PIZ really compress every block (a block that would not shrink is stored raw).
    rng = np.random.default_rng(seed)
    y = (np.round(field(rng, W, H, 100.0, 2.0) * 256) / 256).astype(np.float32)
    flat = y.reshape(-1).view(np.uint32)
    specials = [0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000, 0x00000001, 0x00400000, 0xFF7FFFFF, 0x7FA00001, 0xFFC00123]
    flat[: len(specials)] = specials
    r = (np.round(rng.uniform(-1, 1, (H, W)) * 4096) / 4096).astype(np.float32)
    g = (np.round(field(rng, W, H, 40.0, 0.5) * 64) / 64).astype(np.float32)
    b = (np.round(rng.standard_normal((H, W)) * 64) * 10.0 ** rng.integers(-3, 4, (H, W))).astype(np.float32)
    b = sprinkle(rng, b, np.uint32, 0.02)
    return {"Y": y, "R": r, "G": g, "B": b}


def half_channels(seed):
    rng = np.random.default_rng(seed)
    y = field(rng, W, H, 30.0, 0.05).astype(np.float16)
    flat = y.reshape(-1).view(np.uint16)
    specials = [0x7E00, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x03FF, 0x7BFF, 0xFBFF, 0x7C01, 0xFE37]
    flat[: len(specials)] = specials
    r = (np.round(rng.uniform(-1, 1, (H, W)) * 256) / 256).astype(np.float16)
    g = (np.round(field(rng, W, H, 20.0, 0.5) * 4) / 4).astype(np.float16)
    b = (np.round(rng.standard_normal((H, W)) * 16) * 10.0 ** rng.integers(-4, 3, (H, W))).astype(np.float16)
    b = sprinkle(rng, b, np.uint16, 0.02)
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
                    header["tiles"] = tiles(96, 48)
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

    # Bit patterns that sweep smoothly (plus noise) through most of the 16-bit range, NaN payloads included: blocks
    # wide enough to hold more than 2^14 distinct 16-bit values (the 16-bit wavelet path), yet compressible.
    rng = np.random.default_rng(7)
    ww, wh = 2011, 40
    yy, xx = np.mgrid[0:wh, 0:ww].astype(np.int64)

    def sweep(mx, my):
        return (xx * mx + yy * my + rng.integers(-3, 4, (wh, ww))) & 0xFFFF

    wide = {
        "half": {"Y": sweep(31, 7).astype(np.uint16).view(np.float16)},
        "float": {"Y": ((sweep(29, 5) << 16) | sweep(13, 3)).astype(np.uint32).view(np.float32)},
    }
    for ptype, cs in wide.items():
        for layout in ("scanline", "tiled"):
            name = f"wide-{layout}-{ptype}-piz.exr"
            header = {"compression": E.PIZ_COMPRESSION}
            if layout == "tiled":
                header["type"] = E.tiledimage
                header["tiles"] = tiles(2048, 32)
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
                    "wide": True,
                }
            )

    # Pure random bit patterns do not compress: OpenEXR stores such blocks raw, whatever the compression.
    noise = {"Y": rng.integers(0, 2**32, (H, W), dtype=np.uint64).astype(np.uint32).view(np.float32)}
    noise_expect = save_expect(out, "expect-incompressible.u32", noise["Y"])
    for cname in ("rle", "zips", "zip", "piz"):
        name = f"incompressible-{cname}.exr"
        write(out, name, {"compression": COMPRESSIONS[cname]}, noise)
        manifest.append(
            {
                "file": name,
                "layout": "scanline",
                "ptype": "float",
                "compression": cname.upper(),
                "width": W,
                "height": H,
                "lineOrder": "INCREASING_Y",
                "channels": {"Y": noise_expect},
                "incompressible": True,
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

    # RIPMAP_LEVELS, ROUND_UP, from the OpenEXR bindings: they write level 0 (the levels below stay absent from the
    # chunk table), which is what the decoder reads.
    rip = tiles(64, 32, E.RIPMAP_LEVELS)
    rip.roundingMode = E.ROUND_UP
    write(out, "rip-half-piz.exr", {"compression": E.PIZ_COMPRESSION, "type": E.tiledimage, "tiles": rip, "dataWindow": DATA_WINDOW}, hc)
    manifest.append(
        {
            "file": "rip-half-piz.exr",
            "layout": "tiled",
            "ptype": "half",
            "compression": "PIZ",
            "width": W,
            "height": H,
            "lineOrder": "INCREASING_Y",
            "channels": expect["half"],
            "levels": "9x9",
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
    # No Y: the default channel is R.
    write(out, "rgb.exr", {"compression": E.ZIP_COMPRESSION}, {"R": fc["R"], "G": fc["G"], "B": fc["B"]})

    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"openexr": E.__version__, "oiio": oiio.__version__, "files": manifest}, f, indent=1)


if __name__ == "__main__":
    main()
