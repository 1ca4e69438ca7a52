"""Second opinion on a DDS file from OpenImageIO (PyPI wheel), for test/format-dds.test.ts.

Usage: oiio_dds.py FILE.dds OUTDIR
Prints one JSON object: {"ok": false, "error": ...} when OpenImageIO refuses the file, else the spec it reports
(width, height, nchannels, pixel format, oiio:BitsPerSample, subimages) and for every mip level its size and a raw
dump OUTDIR/oiio.mK.raw of the pixels in the spec's own format (channels interleaved, row 0 first).
Also reports whether OpenImageIO has a DDS writer at all ("canWrite").
"""
import json
import os
import sys

import OpenImageIO as oiio


def main():
    path, outdir = sys.argv[1], sys.argv[2]
    out = oiio.ImageOutput.create(os.path.join(outdir, 'probe.dds'))
    can_write = out is not None
    oiio.geterror()  # clear the "no writer" message so it is not printed at exit
    inp = oiio.ImageInput.open(path)
    if inp is None:
        print(json.dumps({'ok': False, 'error': oiio.geterror(), 'canWrite': can_write, 'version': oiio.__version__}))
        return
    spec = inp.spec()
    subimages = 0
    while inp.seek_subimage(subimages, 0):
        subimages += 1
    levels = []
    k = 0
    while inp.seek_subimage(0, k):
        s = inp.spec()
        fmt = str(s.format)
        a = inp.read_image(0, k, 0, s.nchannels, s.format)
        f = os.path.join(outdir, f'oiio.m{k}.raw')
        a.tofile(f)
        levels.append({'width': s.width, 'height': s.height, 'format': fmt, 'file': f})
        k += 1
    print(json.dumps({
        'ok': True, 'version': oiio.__version__, 'canWrite': can_write,
        'width': spec.width, 'height': spec.height, 'nchannels': spec.nchannels, 'format': str(spec.format),
        'bitsPerSample': spec.get_int_attribute('oiio:BitsPerSample', 0),
        'mipLevelsAttr': spec.get_int_attribute('oiio:miplevels', 1),
        'subimages': subimages, 'levels': levels,
    }))
    inp.close()


if __name__ == '__main__':
    main()
