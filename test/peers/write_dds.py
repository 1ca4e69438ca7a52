"""Independent DDS writer for test/format-dds.test.ts (no code shared with src/io/formats/dds.ts).

Usage: write_dds.py OUTDIR
Writes a set of DDS files into OUTDIR, packed field by field after Microsoft's documentation of DDS_HEADER,
DDS_PIXELFORMAT and DDS_HEADER_DXT10, plus OUTDIR/manifest.json naming each file, the header fields written and,
for every (slice, mip, channel), a raw little-endian float64 file of the values the pixels hold (float16 values
widened by numpy, UNORM16 codes as integers). Values are seeded, so the same command writes the same bytes.
"""
import json
import os
import struct
import sys

import numpy as np

# DDS_HEADER.dwFlags
DDSD_CAPS, DDSD_HEIGHT, DDSD_WIDTH, DDSD_PITCH = 0x1, 0x2, 0x4, 0x8
DDSD_PIXELFORMAT, DDSD_MIPMAPCOUNT, DDSD_LINEARSIZE = 0x1000, 0x20000, 0x80000
# DDS_PIXELFORMAT.dwFlags
DDPF_FOURCC, DDPF_RGB, DDPF_LUMINANCE = 0x4, 0x40, 0x20000
# DDS_HEADER.dwCaps
DDSCAPS_COMPLEX, DDSCAPS_TEXTURE, DDSCAPS_MIPMAP = 0x8, 0x1000, 0x400000
DDS_DIMENSION_TEXTURE2D = 3


def fourcc(s):
    return struct.unpack('<I', s.encode('ascii'))[0]


def pixelformat(flags, four_cc=0, bits=0, rmask=0, gmask=0, bmask=0, amask=0):
    """DDS_PIXELFORMAT: dwSize, dwFlags, dwFourCC, dwRGBBitCount, dwRBitMask, dwGBitMask, dwBBitMask, dwABitMask."""
    return struct.pack('<8I', 32, flags, four_cc, bits, rmask, gmask, bmask, amask)


def dds_header(width, height, mips, row_pitch, pf):
    """DDS_HEADER (124 bytes): dwSize, dwFlags, dwHeight, dwWidth, dwPitchOrLinearSize, dwDepth, dwMipMapCount,
    dwReserved1[11], ddspf, dwCaps, dwCaps2, dwCaps3, dwCaps4, dwReserved2."""
    flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT | DDSD_PITCH
    caps = DDSCAPS_TEXTURE
    if mips > 1:
        flags |= DDSD_MIPMAPCOUNT
        caps |= DDSCAPS_COMPLEX | DDSCAPS_MIPMAP
    head = struct.pack('<7I', 124, flags, height, width, row_pitch, 0, mips)
    head += struct.pack('<11I', *([0] * 11))
    head += pf
    head += struct.pack('<5I', caps, 0, 0, 0, 0)
    assert len(head) == 124
    return head


def dxt10(dxgi_format, array_size):
    """DDS_HEADER_DXT10: dxgiFormat, resourceDimension, miscFlag, arraySize, miscFlags2."""
    return struct.pack('<5I', dxgi_format, DDS_DIMENSION_TEXTURE2D, 0, array_size, 0)


# component kind, channel names, numpy dtype of one component
FORMATS = {
    56: ('unorm16', 'R'), 54: ('float16', 'R'), 41: ('float32', 'R'),
    35: ('unorm16', 'RG'), 34: ('float16', 'RG'), 16: ('float32', 'RG'), 6: ('float32', 'RGB'),
    11: ('unorm16', 'RGBA'), 10: ('float16', 'RGBA'), 2: ('float32', 'RGBA'),
    57: ('uint16', 'R'),  # R16_UINT: written so the test can see it refused
}
DTYPES = {'unorm16': '<u2', 'uint16': '<u2', 'float16': '<f2', 'float32': '<f4'}


def sample(rng, kind, shape):
    """Seeded values with the edge cases each kind has."""
    if kind in ('unorm16', 'uint16'):
        a = rng.integers(0, 65536, size=shape, dtype=np.uint32).astype('<u2')
        a.flat[0] = 0
        a.flat[-1] = 65535
        return a
    if kind == 'float16':
        bits = rng.integers(0, 65536, size=shape, dtype=np.uint32).astype('<u2')  # every pattern: subnormals, NaN
        specials = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x03FF, 0x3C00, 0x7BFF]
        flat = bits.reshape(-1)
        flat[: min(len(specials), flat.size)] = specials[: flat.size]
        return bits.view('<f2')
    a = (rng.standard_normal(size=shape) * 1000).astype('<f4')
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4028235e38]
    flat = a.reshape(-1)
    flat[: min(len(specials), flat.size)] = specials[: flat.size]
    return a


def write_case(outdir, name, width, height, mips, array_size, dxgi, legacy_pf=None, seed=1, pitch=None):
    kind, channels = FORMATS[dxgi]
    n = len(channels)
    comp = np.dtype(DTYPES[kind]).itemsize
    bpp = comp * n
    rng = np.random.default_rng(seed)
    row_pitch = width * bpp if pitch is None else pitch  # documented: (width * bits-per-pixel + 7) / 8
    pf = legacy_pf if legacy_pf is not None else pixelformat(DDPF_FOURCC, fourcc('DX10'))
    blob = b'DDS ' + dds_header(width, height, mips, row_pitch, pf)
    if legacy_pf is None:
        blob += dxt10(dxgi, array_size)
    expects = []
    pixels = bytearray()
    for s in range(array_size):  # per slice, all of its mips from the largest
        for k in range(mips):
            w, h = max(1, width >> k), max(1, height >> k)
            img = sample(rng, kind, (h, w, n))  # row 0 = top of the image, channels interleaved
            pixels += img.tobytes()
            for c in range(n):
                f = f'{name}.s{s}.m{k}.{channels[c]}.f64'
                img[:, :, c].astype('<f8').tofile(os.path.join(outdir, f))
                expects.append({'slice': s, 'level': k, 'channel': channels[c], 'width': w, 'height': h, 'file': f})
    with open(os.path.join(outdir, name + '.dds'), 'wb') as fh:
        fh.write(blob + bytes(pixels))
    return {
        'name': name, 'file': name + '.dds', 'width': width, 'height': height, 'mipCount': mips,
        'arraySize': array_size, 'dxgiFormat': dxgi, 'legacy': legacy_pf is not None,
        'resourceDimension': None if legacy_pf is not None else DDS_DIMENSION_TEXTURE2D,
        'channels': channels, 'dataOffset': len(blob), 'expects': expects,
    }


def main():
    outdir = sys.argv[1]
    cases = [
        write_case(outdir, 'r16_unorm_mips', 37, 23, 6, 1, 56, seed=11),
        write_case(outdir, 'r16_unorm_array', 16, 16, 5, 3, 56, seed=12),
        write_case(outdir, 'r32_float_array', 19, 11, 3, 2, 41, seed=13),
        write_case(outdir, 'r16_float', 64, 32, 2, 1, 54, seed=14),
        write_case(outdir, 'r16_unorm_nopitch', 5, 3, 1, 1, 56, seed=15, pitch=0),
        write_case(outdir, 'rg16_unorm', 9, 7, 1, 1, 35, seed=16),
        write_case(outdir, 'rg16_float', 9, 7, 1, 1, 34, seed=17),
        write_case(outdir, 'rg32_float', 9, 7, 1, 1, 16, seed=18),
        write_case(outdir, 'rgb32_float', 9, 7, 1, 1, 6, seed=19),
        write_case(outdir, 'rgba16_unorm', 9, 7, 2, 1, 11, seed=20),
        write_case(outdir, 'rgba16_float', 9, 7, 1, 1, 10, seed=21),
        write_case(outdir, 'rgba32_float', 9, 7, 1, 1, 2, seed=22),
        write_case(outdir, 'r16_uint', 4, 4, 1, 1, 57, seed=23),
        # Legacy headers: D3DFMT_L16 by luminance mask, G16R16 by RGB masks, float formats by numeric FourCC.
        write_case(outdir, 'legacy_l16', 33, 17, 6, 1, 56, seed=30,
                   legacy_pf=pixelformat(DDPF_LUMINANCE, bits=16, rmask=0xFFFF)),
        write_case(outdir, 'legacy_g16r16', 6, 5, 1, 1, 35, seed=31,
                   legacy_pf=pixelformat(DDPF_RGB, bits=32, rmask=0x0000FFFF, gmask=0xFFFF0000)),
        write_case(outdir, 'legacy_r32f', 8, 6, 2, 1, 41, seed=32, legacy_pf=pixelformat(DDPF_FOURCC, 114)),
        write_case(outdir, 'legacy_r16f', 8, 6, 1, 1, 54, seed=33, legacy_pf=pixelformat(DDPF_FOURCC, 111)),
        write_case(outdir, 'legacy_a16b16g16r16', 5, 4, 1, 1, 11, seed=34, legacy_pf=pixelformat(DDPF_FOURCC, 36)),
        write_case(outdir, 'legacy_a16b16g16r16f', 5, 4, 1, 1, 10, seed=35, legacy_pf=pixelformat(DDPF_FOURCC, 113)),
        write_case(outdir, 'legacy_a32b32g32r32f', 5, 4, 1, 1, 2, seed=36, legacy_pf=pixelformat(DDPF_FOURCC, 116)),
    ]
    with open(os.path.join(outdir, 'manifest.json'), 'w') as fh:
        json.dump({'cases': cases}, fh, indent=1)


if __name__ == '__main__':
    main()
