;; heightbench EXR ZIP/RLE predictor kernel: undoes the pre-pass of a decompressed block as exr.ts unpredictInterleave
;; does — the running byte sum p[i] = p[i−1] + t[i] − 128 (mod 256, p[0] = t[0]) over the whole block, then the
;; interleave dst[2k] = p[k], dst[2k+1] = p[half + k] (half = ⌈n/2⌉; an odd block's last byte is p[half − 1]).
;; The sum runs sixteen bytes at a time: within a vector by four shifted adds (i8x16.add wraps as mod 256 does), plus
;; the carry of the previous vector's last byte; the interleave takes a vector from each half and shuffles them.
;; Memory (exported, grown by the caller): the block at 0 (n bytes, summed in place), the output at $dst.
(module
  (memory (export "memory") 1)

  (func (export "unpredict") (param $n i32) (param $dst i32)
    (local $i i32) (local $end i32) (local $v v128) (local $carry v128) (local $z v128) (local $bias v128)
    (local $half i32) (local $pairs i32) (local $k i32) (local $a v128) (local $b v128) (local $s i32)
    (if (i32.eqz (local.get $n)) (then (return)))
    (local.set $bias (i8x16.splat (i32.const 128)))
    ;; byte 0 is not biased: add 128 to it first so that the uniform step below gives p[0] = t[0]
    (i32.store8 (i32.const 0) (i32.add (i32.load8_u (i32.const 0)) (i32.const 128)))
    (local.set $end (i32.and (local.get $n) (i32.const -16)))
    (block $done (loop $vec
      (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
      (local.set $v (i8x16.sub (v128.load (local.get $i)) (local.get $bias)))
      ;; inclusive prefix sum within the vector: v += v << 1 byte, << 2, << 4, << 8
      (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 (local.get $v) (local.get $z))))
      (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 (local.get $v) (local.get $z))))
      (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 16 16 16 0 1 2 3 4 5 6 7 8 9 10 11 (local.get $v) (local.get $z))))
      (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 16 16 16 16 16 16 16 0 1 2 3 4 5 6 7 (local.get $v) (local.get $z))))
      (local.set $v (i8x16.add (local.get $v) (local.get $carry)))
      (v128.store (local.get $i) (local.get $v))
      (local.set $carry (i8x16.shuffle 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 (local.get $v) (local.get $v)))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $vec)))
    (local.set $s (i8x16.extract_lane_u 0 (local.get $carry)))
    (block $tdone (loop $tail
      (br_if $tdone (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $s (i32.and (i32.sub (i32.add (local.get $s) (i32.load8_u (local.get $i))) (i32.const 128)) (i32.const 255)))
      (i32.store8 (local.get $i) (local.get $s))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $tail)))
    ;; interleave: sixteen pairs at a time, then one at a time
    (local.set $half (i32.shr_u (i32.add (local.get $n) (i32.const 1)) (i32.const 1)))
    (local.set $pairs (i32.shr_u (local.get $n) (i32.const 1)))
    (local.set $end (i32.and (local.get $pairs) (i32.const -16)))
    (block $idone (loop $inter
      (br_if $idone (i32.ge_u (local.get $k) (local.get $end)))
      (local.set $a (v128.load (local.get $k)))
      (local.set $b (v128.load (i32.add (local.get $half) (local.get $k))))
      (v128.store (i32.add (local.get $dst) (i32.shl (local.get $k) (i32.const 1)))
        (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $a) (local.get $b)))
      (v128.store offset=16 (i32.add (local.get $dst) (i32.shl (local.get $k) (i32.const 1)))
        (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $a) (local.get $b)))
      (local.set $k (i32.add (local.get $k) (i32.const 16)))
      (br $inter)))
    (block $pdone (loop $pair
      (br_if $pdone (i32.ge_u (local.get $k) (local.get $pairs)))
      (i32.store8 (i32.add (local.get $dst) (i32.shl (local.get $k) (i32.const 1))) (i32.load8_u (local.get $k)))
      (i32.store8 offset=1 (i32.add (local.get $dst) (i32.shl (local.get $k) (i32.const 1))) (i32.load8_u (i32.add (local.get $half) (local.get $k))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $pair)))
    (if (i32.and (local.get $n) (i32.const 1))
      (then (i32.store8 (i32.add (local.get $dst) (i32.sub (local.get $n) (i32.const 1))) (i32.load8_u (i32.sub (local.get $half) (i32.const 1))))))
  )
)
