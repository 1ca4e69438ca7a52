;; heightbench field summary kernels: what `info` states about a field — the count of NaN, +Inf and −Inf samples and
;; the least and greatest finite value of a float32 field, or the least and greatest code of a u16 field — in one pass
;; of four (eight) lanes, over a chunk the caller copied into this module's memory at offset 0.
;; The JavaScript loops they stand for (src/core/summary.ts) keep the first of equal values; only ±0 can differ among
;; equal floats, so the caller re-decides a zero extreme there. Results at `out`: nan, posInf, negInf (i32, added to
;; what is there), then min and max (f32, folded into what is there).
(module
  (memory (export "memory") 17)

  ;; Float32 samples [0, count) at offset 0; out = 16-byte state block (see header).
  (func (export "floats") (param $count i32) (param $out i32)
    (local $p i32) (local $end i32) (local $v v128) (local $nan v128) (local $pinf v128) (local $ninf v128)
    (local $cn v128) (local $cp v128) (local $cm v128) (local $lo v128) (local $hi v128) (local $fin v128)
    (local $x f32) (local $a f32) (local $b f32)
    (local.set $pinf (f32x4.splat (f32.const inf)))
    (local.set $ninf (f32x4.splat (f32.const -inf)))
    (local.set $lo (local.get $pinf))
    (local.set $hi (local.get $ninf))
    (local.set $end (i32.shl (i32.and (local.get $count) (i32.const -4)) (i32.const 2)))
    ;; The common chunk, every sample finite: pmin/pmax (one instruction each; a NaN lane never wins them) and a count
    ;; of finite lanes. A chunk with any non-finite lane is scanned again by the exact loop below, which counts them.
    (block $fast (loop $quick
      (br_if $fast (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $v (v128.load (local.get $p)))
      (local.set $lo (f32x4.pmin (local.get $lo) (local.get $v)))
      (local.set $hi (f32x4.pmax (local.get $hi) (local.get $v)))
      (local.set $cn (i32x4.sub (local.get $cn) (f32x4.lt (f32x4.abs (local.get $v)) (local.get $pinf))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $quick)))
    (if (i32.ne (i32.shl
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $cn)) (i32x4.extract_lane 1 (local.get $cn)))
                   (i32.add (i32x4.extract_lane 2 (local.get $cn)) (i32x4.extract_lane 3 (local.get $cn))))
          (i32.const 2))
          (local.get $end))
      (then
        (local.set $p (i32.const 0))
        (local.set $lo (local.get $pinf))
        (local.set $hi (local.get $ninf))))
    (local.set $cn (i32x4.splat (i32.const 0)))
    (block $done (loop $vec
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $v (v128.load (local.get $p)))
      (local.set $nan (f32x4.ne (local.get $v) (local.get $v)))
      (local.set $cn (i32x4.sub (local.get $cn) (local.get $nan)))
      (local.set $cp (i32x4.sub (local.get $cp) (f32x4.eq (local.get $v) (local.get $pinf))))
      (local.set $cm (i32x4.sub (local.get $cm) (f32x4.eq (local.get $v) (local.get $ninf))))
      ;; finite lanes: |v| < inf (false for NaN)
      (local.set $fin (f32x4.lt (f32x4.abs (local.get $v)) (local.get $pinf)))
      (local.set $lo (f32x4.min (local.get $lo) (v128.bitselect (local.get $v) (local.get $pinf) (local.get $fin))))
      (local.set $hi (f32x4.max (local.get $hi) (v128.bitselect (local.get $v) (local.get $ninf) (local.get $fin))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $vec)))
    ;; lanes folded into the state, then the tail one sample at a time
    (i32.store (local.get $out) (i32.add (i32.load (local.get $out))
      (i32.add (i32.add (i32x4.extract_lane 0 (local.get $cn)) (i32x4.extract_lane 1 (local.get $cn)))
               (i32.add (i32x4.extract_lane 2 (local.get $cn)) (i32x4.extract_lane 3 (local.get $cn))))))
    (i32.store offset=4 (local.get $out) (i32.add (i32.load offset=4 (local.get $out))
      (i32.add (i32.add (i32x4.extract_lane 0 (local.get $cp)) (i32x4.extract_lane 1 (local.get $cp)))
               (i32.add (i32x4.extract_lane 2 (local.get $cp)) (i32x4.extract_lane 3 (local.get $cp))))))
    (i32.store offset=8 (local.get $out) (i32.add (i32.load offset=8 (local.get $out))
      (i32.add (i32.add (i32x4.extract_lane 0 (local.get $cm)) (i32x4.extract_lane 1 (local.get $cm)))
               (i32.add (i32x4.extract_lane 2 (local.get $cm)) (i32x4.extract_lane 3 (local.get $cm))))))
    (local.set $a (f32.min (f32.min (f32x4.extract_lane 0 (local.get $lo)) (f32x4.extract_lane 1 (local.get $lo)))
                           (f32.min (f32x4.extract_lane 2 (local.get $lo)) (f32x4.extract_lane 3 (local.get $lo)))))
    (local.set $b (f32.max (f32.max (f32x4.extract_lane 0 (local.get $hi)) (f32x4.extract_lane 1 (local.get $hi)))
                           (f32.max (f32x4.extract_lane 2 (local.get $hi)) (f32x4.extract_lane 3 (local.get $hi)))))
    (local.set $end (i32.shl (local.get $count) (i32.const 2)))
    (block $tdone (loop $tail
      (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $x (f32.load (local.get $p)))
      (if (f32.ne (local.get $x) (local.get $x))
        (then (i32.store (local.get $out) (i32.add (i32.load (local.get $out)) (i32.const 1))))
        (else (if (f32.eq (local.get $x) (f32.const inf))
          (then (i32.store offset=4 (local.get $out) (i32.add (i32.load offset=4 (local.get $out)) (i32.const 1))))
          (else (if (f32.eq (local.get $x) (f32.const -inf))
            (then (i32.store offset=8 (local.get $out) (i32.add (i32.load offset=8 (local.get $out)) (i32.const 1))))
            (else
              (local.set $a (f32.min (local.get $a) (local.get $x)))
              (local.set $b (f32.max (local.get $b) (local.get $x)))))))))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br $tail)))
    (f32.store offset=12 (local.get $out) (f32.min (f32.load offset=12 (local.get $out)) (local.get $a)))
    (f32.store offset=16 (local.get $out) (f32.max (f32.load offset=16 (local.get $out)) (local.get $b))))

  ;; u16 codes [0, count) at offset 0; out: min and max (i32, folded into what is there).
  (func (export "codes") (param $count i32) (param $out i32)
    (local $p i32) (local $end i32) (local $v v128) (local $lo v128) (local $hi v128) (local $k i32) (local $q i32)
    (local $a i32) (local $b i32)
    (local.set $lo (i16x8.splat (i32.const 0xffff)))
    (local.set $end (i32.shl (i32.and (local.get $count) (i32.const -8)) (i32.const 1)))
    (block $done (loop $vec
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $v (v128.load (local.get $p)))
      (local.set $lo (i16x8.min_u (local.get $lo) (local.get $v)))
      (local.set $hi (i16x8.max_u (local.get $hi) (local.get $v)))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $vec)))
    (local.set $a (i32.load (local.get $out)))
    (local.set $b (i32.load offset=4 (local.get $out)))
    (block $ldone (loop $lanes
      (br_if $ldone (i32.ge_u (local.get $k) (i32.const 8)))
      ;; lane k of each register through memory (lane indices must be constants)
      (v128.store offset=32 (local.get $out) (local.get $lo))
      (v128.store offset=48 (local.get $out) (local.get $hi))
      (local.set $q (i32.load16_u offset=32 (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 1)))))
      (if (i32.lt_u (local.get $q) (local.get $a)) (then (local.set $a (local.get $q))))
      (local.set $q (i32.load16_u offset=48 (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 1)))))
      (if (i32.gt_u (local.get $q) (local.get $b)) (then (local.set $b (local.get $q))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $lanes)))
    (local.set $end (i32.shl (local.get $count) (i32.const 1)))
    (block $tdone (loop $tail
      (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $q (i32.load16_u (local.get $p)))
      (if (i32.lt_u (local.get $q) (local.get $a)) (then (local.set $a (local.get $q))))
      (if (i32.gt_u (local.get $q) (local.get $b)) (then (local.set $b (local.get $q))))
      (local.set $p (i32.add (local.get $p) (i32.const 2)))
      (br $tail)))
    (i32.store (local.get $out) (local.get $a))
    (i32.store offset=4 (local.get $out) (local.get $b)))

  ;; Byte order of the [0, bytes) samples at offset 0 reversed in place, per 32-bit (swap32) or 16-bit (swap16) word:
  ;; a big-endian run read into the window before it is summarized. `bytes` is a multiple of the word size.
  (func (export "swap32") (param $bytes i32)
    (local $p i32) (local $end i32)
    (local.set $end (i32.and (local.get $bytes) (i32.const -16)))
    (block $done (loop $vec
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (v128.store (local.get $p) (i8x16.shuffle 3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12 (v128.load (local.get $p)) (v128.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $vec)))
    (block $tdone (loop $tail
      (br_if $tdone (i32.ge_u (local.get $p) (local.get $bytes)))
      (i32.store (local.get $p) (i32.or (i32.or (i32.shl (i32.load8_u (local.get $p)) (i32.const 24)) (i32.shl (i32.load8_u offset=1 (local.get $p)) (i32.const 16)))
                                        (i32.or (i32.shl (i32.load8_u offset=2 (local.get $p)) (i32.const 8)) (i32.load8_u offset=3 (local.get $p)))))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br $tail))))

  (func (export "swap16") (param $bytes i32)
    (local $p i32) (local $end i32)
    (local.set $end (i32.and (local.get $bytes) (i32.const -16)))
    (block $done (loop $vec
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (v128.store (local.get $p) (i8x16.shuffle 1 0 3 2 5 4 7 6 9 8 11 10 13 12 15 14 (v128.load (local.get $p)) (v128.load (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $vec)))
    (block $tdone (loop $tail
      (br_if $tdone (i32.ge_u (local.get $p) (local.get $bytes)))
      (i32.store16 (local.get $p) (i32.or (i32.shl (i32.load8_u (local.get $p)) (i32.const 8)) (i32.load8_u offset=1 (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 2)))
      (br $tail))))
)
