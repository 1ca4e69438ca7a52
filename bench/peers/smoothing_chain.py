#!/usr/bin/python3
"""The heightbench smoothing chain written with numpy/OpenCV (Debian's python3-numpy, python3-opencv), single-threaded.

Same rules as src/cpu/smoothing.ts: the separable 5-tap filter at fractional offsets (X pass then Y pass, +0.5
texel on the cross axis, clamp addressing) on the N^2 raster, then three centre-aligned halvings (2x2 means), each
followed by the same filter, then
Hbase = (h2 - h3) * 0.5 + h3 with bilinear samples of the N/4 and N/8 levels at the N^2 pixel centres.
A tap at fractional offset k + f reads texels k and k + 1 with weights (1 - f) and f, so each pass is a fixed small
integer-offset kernel: sepFilter2D with replicated borders is exactly clamp addressing.
Usage: smoothing_chain.py RASTER.r32 N OUT.r32  -> prints JSON {"ms": …}
"""
import json, sys, time
import numpy as np
import cv2

cv2.setNumThreads(1)
OFF = [-4.30908, -2.37532, -0.5, 1.37532, 3.30908]
W = [0.055028, 0.244038, 0.401870, 0.244038, 0.055028]


def main_axis_kernel():
    # Taps k and k+1 for every offset; indices relative to the output texel, from -5 to +4.
    k = np.zeros(10, np.float64)
    for o, w in zip(OFF, W):
        i = int(np.floor(o)); f = o - i
        k[i + 5] += w * (1 - f)
        k[i + 6] += w * f
    return k.astype(np.float32)


def filter_level(a):
    km = main_axis_kernel()
    half = np.array([0.5, 0.5], np.float32)
    # X pass: main axis along x (anchor 5 puts offset 0 at index 5); cross axis +0.5: rows j and j+1 (anchor 0).
    x = cv2.sepFilter2D(a, cv2.CV_32F, km, half, anchor=(5, 0), borderType=cv2.BORDER_REPLICATE)
    # Y pass: main axis along y; cross axis +0.5: columns i and i+1.
    return cv2.sepFilter2D(x, cv2.CV_32F, half, km, anchor=(0, 5), borderType=cv2.BORDER_REPLICATE)


def chain(raster):
    n = raster.shape[0]
    levels, prev = [], filter_level(raster)  # L0: the N^2 level is filtered too (issue 14)
    for _ in range(3):
        down = cv2.resize(prev, (prev.shape[1] // 2, prev.shape[0] // 2), interpolation=cv2.INTER_AREA)
        prev = filter_level(down)
        levels.append(prev)
    h2 = cv2.resize(levels[1], (n, n), interpolation=cv2.INTER_LINEAR)
    h3 = cv2.resize(levels[2], (n, n), interpolation=cv2.INTER_LINEAR)
    return (h2 - h3) * np.float32(0.5) + h3


if __name__ == "__main__":
    path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    raster = np.fromfile(path, dtype="<f4").reshape(n, n)
    chain(raster)  # warm-up
    t0 = time.perf_counter()
    base = chain(raster)
    ms = (time.perf_counter() - t0) * 1000
    base.astype("<f4").tofile(out)
    print(json.dumps({"ms": ms}))
