#!/usr/bin/env python3
"""A reconstruction of "my-terrain" with its own stage names, in numpy, importing nothing from heightbench.

  python reconstruct.py rebuild OUT     this rebuild's four stages, as a researcher's code would dump them:
                                        OUT/noise.npy, smooth.npy, shaped.npy (float32 metres), final.npy (uint16 codes);
                                        row 0 at world y min (south-up), 512 x 512, 8 m pixels, extent -2048 … 2048 m
  python reconstruct.py original OUT    the captures of the "original" tool it rebuilds, which differs slightly:
                                        5 planted pixels in its noise (+3 m), and one flipped convention — it stores
                                        rows north-up (row 0 at world y max), as most image tools do

The stages: noise = a value-noise lattice (seeded), smooth = a 5 x 5 box filter with edges clamped,
shaped = 1.2 h + 50 (float32), final = UNORM16 of shaped over -200 … 1800 m, rounded half up.
"""
import sys
from pathlib import Path

import numpy as np

N = 512
RANGE = (-200.0, 1800.0)
PLANTED = [(60, 70), (200, 90), (330, 300), (120, 420), (450, 250)]  # (column, row), row 0 at world y min


def noise(seed=7):
    """Bilinear value noise over three octaves (a 9-, 17- and 33-point lattice), heights 200 … 600 m."""
    rng = np.random.default_rng(seed)
    x = (np.arange(N, dtype=np.float64) + 0.5) / N
    out = np.zeros((N, N), dtype=np.float64)
    for lattice, amp in ((9, 240.0), (17, 110.0), (33, 50.0)):
        v = rng.random((lattice, lattice))
        p = x * (lattice - 1)
        i = np.minimum(np.floor(p).astype(int), lattice - 2)
        f = p - i
        rows = v[i, :] * (1 - f)[:, None] + v[i + 1, :] * f[:, None]
        out += amp * (rows[:, i] * (1 - f)[None, :] + rows[:, i + 1] * f[None, :])
    return (200.0 + out).astype(np.float32)


def smooth(h):
    padded = np.pad(h, 2, mode="edge")
    s = np.zeros_like(h, dtype=np.float32)
    for dj in range(5):
        for di in range(5):
            s += padded[dj : dj + N, di : di + N]
    return (s / np.float32(25)).astype(np.float32)


def shaped(h):
    return (h * np.float32(1.2) + np.float32(50)).astype(np.float32)


def unorm16(h):
    u = np.clip((h.astype(np.float32) - np.float32(RANGE[0])) / np.float32(RANGE[1] - RANGE[0]), 0, 1)
    return np.floor(u * np.float32(65535) + np.float32(0.5)).astype(np.uint16)


def stages(planted):
    n = noise()
    if planted:
        for c, r in PLANTED:
            n[r, c] += np.float32(3)
    s = smooth(n)
    p = shaped(s)
    return {"noise": n, "smooth": s, "shaped": p, "final": unorm16(p)}


def main(which, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    original = which == "original"
    for name, a in stages(planted=original).items():
        np.save(out / f"{name}.npy", np.flipud(a) if original else a)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("rebuild", "original"):
        sys.exit("usage: reconstruct.py rebuild|original OUT")
    main(sys.argv[1], sys.argv[2])
