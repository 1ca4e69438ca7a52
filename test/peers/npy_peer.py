"""numpy side of test/format-npy.test.ts (no code shared with src/io/formats/npy.ts).

  npy_peer.py write OUTDIR     writes .npy files with np.save / np.lib.format.write_array (every dtype heightbench
                               reads, both byte orders, C and Fortran order, versions 1.0/2.0/3.0, and files it must
                               refuse) and OUTDIR/manifest.json; for each readable file a raw little-endian float64
                               dump (C order, row 0 = a[0, :]) of the values numpy holds.
  npy_peer.py load IN OUTDIR   np.load(IN) without pickles; prints {"dtype", "shape"} and writes OUTDIR/values.f64
                               (the values as float64, C order) and OUTDIR/resaved.npy (np.save of the loaded array).
"""
import json
import os
import sys

import numpy as np


def ramp(h, w, dtype):
    """Seeded values with each type's edge cases: 0 and 65535 in u2, -32768 and 32767 in i2, NaN/±Inf/-0 in floats."""
    rng = np.random.default_rng(h * 1000 + w)
    kind = np.dtype(dtype)
    if kind.kind == 'u':
        a = rng.integers(0, 65536, size=(h, w)).astype(np.uint16)
        a.flat[0], a.flat[-1] = 0, 65535
    elif kind.kind == 'i':
        a = rng.integers(-32768, 32768, size=(h, w)).astype(np.int16)
        a.flat[0], a.flat[-1] = -32768, 32767
    else:
        a = (np.arange(h * w).reshape(h, w) * 0.37 - 11.5 + rng.standard_normal((h, w))).astype(kind.newbyteorder('='))
        specials = [np.nan, np.inf, -np.inf, -0.0, 0.0]
        for k, v in enumerate(specials):
            if 1 + 3 * k < a.size - 1:
                a.flat[1 + 3 * k] = v
        if kind.itemsize == 2:
            a.flat[-1] = np.float16(6.0e-8)  # a float16 subnormal
        elif kind.itemsize == 4:
            a.flat[-1] = np.float32(1.0e-45)
        else:
            a.flat[-1] = 5e-324
    return a.astype(kind)  # applies the byte order


def main_write(outdir):
    cases = []

    def save(name, a, version=None, expect=True):
        path = os.path.join(outdir, name + '.npy')
        if version is None:
            np.save(path, a, allow_pickle=(a.dtype.kind == 'O'))
        else:
            with open(path, 'wb') as fh:
                np.lib.format.write_array(fh, a, version=version, allow_pickle=(a.dtype.kind == 'O'))
        entry = {'name': name, 'file': name + '.npy', 'descr': np.lib.format.dtype_to_descr(a.dtype)
                 if a.dtype.kind != 'V' else 'structured', 'shape': list(a.shape),
                 'fortran': bool(a.flags.f_contiguous and not a.flags.c_contiguous)}
        if expect:
            np.ascontiguousarray(a).astype('<f8').tofile(os.path.join(outdir, name + '.f64'))
            entry['values'] = name + '.f64'
        cases.append(entry)

    for code in ['u2', 'i2', 'f2', 'f4', 'f8']:
        for order in '<>':
            a = ramp(7, 11, order + code)
            save(f'{code}_{"le" if order == "<" else "be"}_c', a)
            save(f'{code}_{"le" if order == "<" else "be"}_f', np.asfortranarray(a))
    save('f4_v2', ramp(5, 3, '<f4'), version=(2, 0))
    save('u2_v3', ramp(4, 6, '<u2'), version=(3, 0))
    save('f8_be_f_v2', np.asfortranarray(ramp(9, 4, '>f8')), version=(2, 0))
    save('hw1', ramp(6, 5, '<f4')[:, :, None])
    save('tall', ramp(100000, 1, '<u2'))
    save('wide_f', np.asfortranarray(ramp(1, 1000, '<i2')))
    save('one', ramp(1, 1, '<f8'))
    # Files heightbench must refuse.
    save('oned', ramp(1, 12, '<f4')[0], expect=False)
    save('threed', np.zeros((2, 3, 4), '<f4'), expect=False)
    save('u1', np.zeros((3, 3), 'u1'), expect=False)
    save('i4', np.zeros((3, 3), '<i4'), expect=False)
    save('c8', np.zeros((3, 3), '<c8'), expect=False)
    save('obj', np.array([[{'a': 1}, None]], dtype=object), expect=False)
    save('structured', np.zeros((2, 2), dtype=[('h', '<f4'), ('m', '<u2')]), expect=False)
    save('empty', np.zeros((0, 4), '<f4'), expect=False)
    with open(os.path.join(outdir, 'manifest.json'), 'w') as fh:
        json.dump({'numpy': np.__version__, 'cases': cases}, fh, indent=1)


def main_load(path, outdir):
    a = np.load(path, allow_pickle=False)
    np.ascontiguousarray(a).astype('<f8').tofile(os.path.join(outdir, 'values.f64'))
    np.save(os.path.join(outdir, 'resaved.npy'), a)
    print(json.dumps({'dtype': a.dtype.str, 'shape': list(a.shape), 'numpy': np.__version__}))


if __name__ == '__main__':
    if sys.argv[1] == 'write':
        main_write(sys.argv[2])
    elif sys.argv[1] == 'load':
        main_load(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit('usage: npy_peer.py write OUTDIR | load IN OUTDIR')
