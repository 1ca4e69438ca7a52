#!/usr/bin/env python3
"""An outside reconstruction of two stages of the teaching-512 pipeline, written with numpy (and rasterio for the
GeoTIFF), importing nothing from heightbench. It stands for a researcher's own rebuild:

  inputs/raster.npy      the rasterised field (N x N float32, row 0 at world y min), exported by heightbench
  inputs/pre-encode.npy  the heights before encoding, same layout

  captures/base.tif          this rebuild's smoothing chain over the raster: float32 GeoTIFF, north-up, deflate
  captures/pre-encode.npy    the pre-encode heights as this rebuild keeps them: north-up (row 0 = world y max)
  captures/final.dds         the pre-encode heights encoded to R16_UNORM as a render-target capture would be saved:
                             DDS with the DX10 header, DXGI_FORMAT_R16_UNORM, row 0 = top of the image (north)

The smoothing rules, as the article states them: a separable five-tap filter at fractional offsets
(-4.30908, -2.37532, -0.5, 1.37532, 3.30908) with weights (0.055028, 0.244038, 0.401870, 0.244038, 0.055028), taps
read with bilinear filtering and clamp addressing, an X pass then a Y pass each sampling half a texel across; the
full-resolution level is filtered, then three 2x2 halvings each followed by the same filter; the base is
(h2 - h3) * 0.5 + h3 from bilinear samples of the quarter- and eighth-resolution levels at the full-resolution texel
centres. Encoding: u = clamp((H + 500) * 0.001, 0, 1), q = round-half-up(u * 65535).
"""
import json
import struct
import sys
from pathlib import Path

import numpy as np

OFFSETS = (-4.30908, -2.37532, -0.5, 1.37532, 3.30908)
WEIGHTS = (0.055028, 0.244038, 0.401870, 0.244038, 0.055028)


def sample_linear(a, pos, axis):
    """Linear interpolation of `a` along `axis` at continuous texel coordinates `pos` (texel centres at integers),
    clamp-to-edge addressing."""
    n = a.shape[axis]
    p0 = np.floor(pos).astype(np.int64)
    f = (pos - p0).astype(np.float32)
    i0 = np.clip(p0, 0, n - 1)
    i1 = np.clip(p0 + 1, 0, n - 1)
    a0 = np.take(a, i0, axis=axis)
    a1 = np.take(a, i1, axis=axis)
    shape = [1, 1]
    shape[axis] = -1
    f = f.reshape(shape)
    return a0 * (np.float32(1) - f) + a1 * f


def filter_pass(a, axis):
    """One pass of the five-tap filter along `axis`, sampling half a texel along the other axis."""
    cross = 1 - axis
    n_cross = a.shape[cross]
    shifted = sample_linear(a, np.arange(n_cross) + 0.5, cross)
    n = a.shape[axis]
    out = np.zeros_like(a, dtype=np.float32)
    for off, w in zip(OFFSETS, WEIGHTS):
        out += np.float32(w) * sample_linear(shifted, np.arange(n) + off, axis)
    return out


def filter_level(a):
    return filter_pass(filter_pass(a, axis=1), axis=0)


def halve(a):
    return ((a[0::2, 0::2] + a[1::2, 0::2] + a[0::2, 1::2] + a[1::2, 1::2]) * np.float32(0.25)).astype(np.float32)


def upsample(level, n):
    """Bilinear samples of a coarse level at the centres of an n x n grid over the same extent."""
    scale = level.shape[0] / n
    pos = (np.arange(n) + 0.5) * scale - 0.5
    return sample_linear(sample_linear(level, pos, 0), pos, 1)


def smoothing_chain(raster):
    n = raster.shape[0]
    levels = [filter_level(raster)]
    for _ in range(3):
        levels.append(filter_level(halve(levels[-1])))
    h2, h3 = upsample(levels[2], n), upsample(levels[3], n)
    return ((h2 - h3) * np.float32(0.5) + h3).astype(np.float32)


def unorm16(heights):
    u = np.clip((heights.astype(np.float32) + np.float32(500)) * np.float32(0.001), 0, 1)
    return np.floor(u * np.float32(65535) + np.float32(0.5)).astype(np.uint16)


def write_dds_r16_unorm(path, codes):
    """A DDS file with the DX10 extension header (Microsoft's documented DDS_HEADER / DDS_HEADER_DXT10 layout)."""
    h, w = codes.shape
    DDSD_CAPS, DDSD_HEIGHT, DDSD_WIDTH, DDSD_PITCH, DDSD_PIXELFORMAT = 0x1, 0x2, 0x4, 0x8, 0x1000
    DDPF_FOURCC, DDSCAPS_TEXTURE = 0x4, 0x1000
    pixel_format = struct.pack("<II4sIIIII", 32, DDPF_FOURCC, b"DX10", 0, 0, 0, 0, 0)
    header = struct.pack(
        "<IIIIIII44s32sIIIII",
        124, DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PITCH | DDSD_PIXELFORMAT, h, w, w * 2, 0, 1,
        b"\0" * 44, pixel_format, DDSCAPS_TEXTURE, 0, 0, 0, 0,
    )
    DXGI_FORMAT_R16_UNORM, D3D10_RESOURCE_DIMENSION_TEXTURE2D = 56, 3
    dx10 = struct.pack("<IIIII", DXGI_FORMAT_R16_UNORM, D3D10_RESOURCE_DIMENSION_TEXTURE2D, 0, 1, 0)
    Path(path).write_bytes(b"DDS " + header + dx10 + codes.astype("<u2").tobytes())


def main(inputs, captures):
    import rasterio
    from rasterio.transform import from_origin

    raster = np.load(Path(inputs) / "raster.npy").astype(np.float32)
    pre = np.load(Path(inputs) / "pre-encode.npy").astype(np.float32)
    n = raster.shape[0]
    out = Path(captures)
    out.mkdir(parents=True, exist_ok=True)
    base = smoothing_chain(raster)  # in the input's row order (row 0 at y min): the half-texel steps depend on it
    pixel = 2048.0 / n
    profile = dict(driver="GTiff", width=n, height=n, count=1, dtype="float32", compress="deflate", predictor=3,
                   tiled=True, blockxsize=128, blockysize=128, transform=from_origin(-1024.0, 1024.0, pixel, pixel))
    with rasterio.open(out / "base.tif", "w", **profile) as ds:
        ds.write(np.flipud(base), 1)  # north-up: row 0 is the northern edge
    np.save(out / "pre-encode.npy", np.flipud(pre))
    write_dds_r16_unorm(out / "final.dds", np.flipud(unorm16(pre)))
    print(json.dumps({"n": n, "base_min": float(base.min()), "base_max": float(base.max())}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
