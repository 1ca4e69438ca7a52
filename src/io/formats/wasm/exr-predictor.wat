;; heightbench EXR block kernels: RLE decoding, the ZIP/RLE predictor and the placement of a block's channel.
;; unpredict undoes the pre-pass of a decompressed block as exr.ts unpredictInterleave
;; does — the running byte sum p[i] = p[i−1] + t[i] − 128 (mod 256, p[0] = t[0]) over the whole block, then the
;; interleave dst[2k] = p[k], dst[2k+1] = p[half + k] (half = ⌈n/2⌉; an odd block's last byte is p[half − 1]).
;; The sum runs sixteen bytes at a time: within a vector by four shifted adds (i8x16.add wraps as mod 256 does), plus
;; the carry of the previous vector's last byte; the interleave takes a vector from each half and shuffles them.
;; Memory (exported, grown by the caller): the block at 0 (n bytes, summed in place), the output at $dst.
(module
  (memory (export "memory") 1)

  ;; EXR's RLE, as exr.ts unRle: a signed count byte; negative → that many literal bytes, else the next byte repeated
  ;; count + 1 times. Returns the bytes written, or −1 (past $expected), −2 (a repeat lacks its byte) or
  ;; −16 − count (a literal run of count bytes passes the end of the chunk), checked before each write.
  (func (export "unrle") (param $p i32) (param $size i32) (param $dst i32) (param $expected i32) (result i32)
    (local $end i32) (local $o i32) (local $n i32) (local $count i32)
    (local.set $end (i32.add (local.get $p) (local.get $size)))
    (block $done (loop $run
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $n (i32.load8_s (local.get $p)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (if (i32.lt_s (local.get $n) (i32.const 0))
        (then
          (local.set $count (i32.sub (i32.const 0) (local.get $n)))
          (if (i32.gt_u (i32.add (local.get $p) (local.get $count)) (local.get $end))
            (then (return (i32.sub (i32.const -16) (local.get $count)))))
          (if (i32.gt_u (i32.add (local.get $o) (local.get $count)) (local.get $expected)) (then (return (i32.const -1))))
          (memory.copy (i32.add (local.get $dst) (local.get $o)) (local.get $p) (local.get $count))
          (local.set $p (i32.add (local.get $p) (local.get $count))))
        (else
          (local.set $count (i32.add (local.get $n) (i32.const 1)))
          (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -2))))
          (if (i32.gt_u (i32.add (local.get $o) (local.get $count)) (local.get $expected)) (then (return (i32.const -1))))
          (memory.fill (i32.add (local.get $dst) (local.get $o)) (i32.load8_u (local.get $p)) (local.get $count))
          (local.set $p (i32.add (local.get $p) (i32.const 1)))))
      (local.set $o (i32.add (local.get $o) (local.get $count)))
      (br $run)))
    (local.get $o))

  ;; Copies $bh lines of $bw samples, $line bytes apart from $src, to lines $stride bytes apart from $dst: 32-bit
  ;; samples as they are, or, when $table is not 0, 16-bit halves widened through the table of their float32 bits there.
  (func (export "place") (param $src i32) (param $bw i32) (param $bh i32) (param $line i32) (param $table i32) (param $dst i32) (param $stride i32)
    (local $r i32) (local $x i32) (local $s i32) (local $d i32)
    (block $done (loop $rows
      (br_if $done (i32.ge_u (local.get $r) (local.get $bh)))
      (if (local.get $table)
        (then
          (local.set $x (i32.const 0))
          (local.set $s (local.get $src))
          (local.set $d (local.get $dst))
          (block $hdone (loop $hx
            (br_if $hdone (i32.ge_u (local.get $x) (local.get $bw)))
            (i32.store (local.get $d) (i32.load (i32.add (local.get $table) (i32.shl (i32.load16_u (local.get $s)) (i32.const 2)))))
            (local.set $s (i32.add (local.get $s) (i32.const 2)))
            (local.set $d (i32.add (local.get $d) (i32.const 4)))
            (local.set $x (i32.add (local.get $x) (i32.const 1)))
            (br $hx))))
        (else (memory.copy (local.get $dst) (local.get $src) (i32.shl (local.get $bw) (i32.const 2)))))
      (local.set $src (i32.add (local.get $src) (local.get $line)))
      (local.set $dst (i32.add (local.get $dst) (local.get $stride)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rows)))
  )

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
