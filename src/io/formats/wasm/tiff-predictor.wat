;; heightbench TIFF floating-point predictor kernel (predictor 3, float32): for each of `rows` rows of `wc` words at 0
;; (4·wc bytes each), as tiff.ts floatRowInto does — the byte differences undone by a running sum (mod 256) over the
;; row, then the four byte planes (most significant first) recombined into little-endian words, written to $out
;; (wc words a row). The sum runs sixteen bytes at a time (four shifted adds and the previous vector's last byte), the
;; recombination sixteen words at a time (byte shuffles of one vector from each plane).
;; Memory (exported, grown by the caller): the rows at 0 (summed in place), the words at $out.
;;
;; `horizontal`: for each of `rows` rows of `wc` words of `size` bytes (2 or 4) at 0, in place, as tiff.ts swapWords and
;; undoHorizontal do with one sample a pixel — each word's bytes reversed where $swap (a big-endian file), then where
;; $sum the running sum of the words modulo 2^16 or 2^32 (horizontal differencing undone; libtiff's wrap-around). The
;; sum runs eight or four words at a time (shifted adds and the previous vector's last word), the tail word by word.
(module
  (memory (export "memory") 1)

  (func (export "rows") (param $rows i32) (param $wc i32) (param $out i32)
    (local $r i32) (local $row i32) (local $n i32) (local $i i32) (local $end i32) (local $v v128) (local $carry v128)
    (local $z v128) (local $s i32) (local $k i32) (local $o i32)
    (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128) (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local.set $n (i32.shl (local.get $wc) (i32.const 2)))
    (block $rdone (loop $rowl
      (br_if $rdone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $row (i32.mul (local.get $r) (local.get $n)))
      ;; running sum over the row
      (local.set $i (i32.const 0))
      (local.set $carry (local.get $z))
      (local.set $end (i32.and (local.get $n) (i32.const -16)))
      (block $done (loop $vec
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (i32.add (local.get $row) (local.get $i))))
        (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 (local.get $v) (local.get $z))))
        (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 (local.get $v) (local.get $z))))
        (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 16 16 16 0 1 2 3 4 5 6 7 8 9 10 11 (local.get $v) (local.get $z))))
        (local.set $v (i8x16.add (local.get $v) (i8x16.shuffle 16 16 16 16 16 16 16 16 0 1 2 3 4 5 6 7 (local.get $v) (local.get $z))))
        (local.set $v (i8x16.add (local.get $v) (local.get $carry)))
        (v128.store (i32.add (local.get $row) (local.get $i)) (local.get $v))
        (local.set $carry (i8x16.shuffle 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 (local.get $v) (local.get $v)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $vec)))
      (local.set $s (i8x16.extract_lane_u 0 (local.get $carry)))
      (block $tdone (loop $tail
        (br_if $tdone (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.and (i32.add (local.get $s) (i32.load8_u (i32.add (local.get $row) (local.get $i)))) (i32.const 255)))
        (i32.store8 (i32.add (local.get $row) (local.get $i)) (local.get $s))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
      ;; planes → words: word k = p3[k] | p2[k] << 8 | p1[k] << 16 | p0[k] << 24
      (local.set $o (i32.add (local.get $out) (i32.mul (local.get $r) (local.get $n))))
      (local.set $k (i32.const 0))
      (local.set $end (i32.and (local.get $wc) (i32.const -16)))
      (block $gdone (loop $gather
        (br_if $gdone (i32.ge_u (local.get $k) (local.get $end)))
        (local.set $p0 (v128.load (i32.add (local.get $row) (local.get $k))))
        (local.set $p1 (v128.load (i32.add (i32.add (local.get $row) (local.get $wc)) (local.get $k))))
        (local.set $p2 (v128.load (i32.add (i32.add (local.get $row) (i32.shl (local.get $wc) (i32.const 1))) (local.get $k))))
        (local.set $p3 (v128.load (i32.add (i32.add (local.get $row) (i32.mul (local.get $wc) (i32.const 3))) (local.get $k))))
        (local.set $a (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $p3) (local.get $p2)))
        (local.set $b (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $p3) (local.get $p2)))
        (local.set $c (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $p1) (local.get $p0)))
        (local.set $d (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $p1) (local.get $p0)))
        (v128.store (i32.add (local.get $o) (i32.shl (local.get $k) (i32.const 2)))
          (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $a) (local.get $c)))
        (v128.store offset=16 (i32.add (local.get $o) (i32.shl (local.get $k) (i32.const 2)))
          (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $a) (local.get $c)))
        (v128.store offset=32 (i32.add (local.get $o) (i32.shl (local.get $k) (i32.const 2)))
          (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $b) (local.get $d)))
        (v128.store offset=48 (i32.add (local.get $o) (i32.shl (local.get $k) (i32.const 2)))
          (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $b) (local.get $d)))
        (local.set $k (i32.add (local.get $k) (i32.const 16)))
        (br $gather)))
      (block $wdone (loop $word
        (br_if $wdone (i32.ge_u (local.get $k) (local.get $wc)))
        (i32.store (i32.add (local.get $o) (i32.shl (local.get $k) (i32.const 2)))
          (i32.or (i32.or
            (i32.load8_u (i32.add (i32.add (local.get $row) (i32.mul (local.get $wc) (i32.const 3))) (local.get $k)))
            (i32.shl (i32.load8_u (i32.add (i32.add (local.get $row) (i32.shl (local.get $wc) (i32.const 1))) (local.get $k))) (i32.const 8)))
            (i32.or
              (i32.shl (i32.load8_u (i32.add (i32.add (local.get $row) (local.get $wc)) (local.get $k))) (i32.const 16))
              (i32.shl (i32.load8_u (i32.add (local.get $row) (local.get $k))) (i32.const 24)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $word)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rowl)))
  )

  (func (export "horizontal") (param $rows i32) (param $wc i32) (param $size i32) (param $swap i32) (param $sum i32)
    (local $r i32) (local $row i32) (local $i i32) (local $end i32) (local $a i32) (local $w i32) (local $s i32)
    (local $v v128) (local $carry v128) (local $z v128)
    (block $rdone (loop $rowl
      (br_if $rdone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $row (i32.mul (i32.mul (local.get $r) (local.get $wc)) (local.get $size)))
      (local.set $i (i32.const 0))
      (local.set $carry (local.get $z))
      (if (i32.eq (local.get $size) (i32.const 4))
        (then
          (local.set $end (i32.and (local.get $wc) (i32.const -4)))
          (block $done (loop $vec
            (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
            (local.set $a (i32.add (local.get $row) (i32.shl (local.get $i) (i32.const 2))))
            (local.set $v (v128.load (local.get $a)))
            (if (local.get $swap) (then
              (local.set $v (i8x16.shuffle 3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12 (local.get $v) (local.get $v)))))
            (if (local.get $sum) (then
              (local.set $v (i32x4.add (local.get $v) (i8x16.shuffle 16 17 18 19 0 1 2 3 4 5 6 7 8 9 10 11 (local.get $v) (local.get $z))))
              (local.set $v (i32x4.add (local.get $v) (i8x16.shuffle 16 17 18 19 16 17 18 19 0 1 2 3 4 5 6 7 (local.get $v) (local.get $z))))
              (local.set $v (i32x4.add (local.get $v) (local.get $carry)))
              (local.set $carry (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $v) (local.get $v)))))
            (v128.store (local.get $a) (local.get $v))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $vec)))
          (local.set $s (i32x4.extract_lane 0 (local.get $carry)))
          (block $tdone (loop $tail
            (br_if $tdone (i32.ge_u (local.get $i) (local.get $wc)))
            (local.set $a (i32.add (local.get $row) (i32.shl (local.get $i) (i32.const 2))))
            (local.set $w (i32.load (local.get $a)))
            (if (local.get $swap) (then
              (local.set $w (i32.or
                (i32.or (i32.shl (local.get $w) (i32.const 24)) (i32.and (i32.shl (local.get $w) (i32.const 8)) (i32.const 0xff0000)))
                (i32.or (i32.and (i32.shr_u (local.get $w) (i32.const 8)) (i32.const 0xff00)) (i32.shr_u (local.get $w) (i32.const 24)))))))
            (if (local.get $sum) (then
              (local.set $s (i32.add (local.get $s) (local.get $w)))
              (local.set $w (local.get $s))))
            (i32.store (local.get $a) (local.get $w))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $tail))))
        (else
          (local.set $end (i32.and (local.get $wc) (i32.const -8)))
          (block $done2 (loop $vec2
            (br_if $done2 (i32.ge_u (local.get $i) (local.get $end)))
            (local.set $a (i32.add (local.get $row) (i32.shl (local.get $i) (i32.const 1))))
            (local.set $v (v128.load (local.get $a)))
            (if (local.get $swap) (then
              (local.set $v (i8x16.shuffle 1 0 3 2 5 4 7 6 9 8 11 10 13 12 15 14 (local.get $v) (local.get $v)))))
            (if (local.get $sum) (then
              (local.set $v (i16x8.add (local.get $v) (i8x16.shuffle 16 17 0 1 2 3 4 5 6 7 8 9 10 11 12 13 (local.get $v) (local.get $z))))
              (local.set $v (i16x8.add (local.get $v) (i8x16.shuffle 16 17 16 17 0 1 2 3 4 5 6 7 8 9 10 11 (local.get $v) (local.get $z))))
              (local.set $v (i16x8.add (local.get $v) (i8x16.shuffle 16 17 16 17 16 17 16 17 0 1 2 3 4 5 6 7 (local.get $v) (local.get $z))))
              (local.set $v (i16x8.add (local.get $v) (local.get $carry)))
              (local.set $carry (i8x16.shuffle 14 15 14 15 14 15 14 15 14 15 14 15 14 15 14 15 (local.get $v) (local.get $v)))))
            (v128.store (local.get $a) (local.get $v))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $vec2)))
          (local.set $s (i16x8.extract_lane_u 0 (local.get $carry)))
          (block $tdone2 (loop $tail2
            (br_if $tdone2 (i32.ge_u (local.get $i) (local.get $wc)))
            (local.set $a (i32.add (local.get $row) (i32.shl (local.get $i) (i32.const 1))))
            (local.set $w (i32.load16_u (local.get $a)))
            (if (local.get $swap) (then
              (local.set $w (i32.and (i32.or (i32.shl (local.get $w) (i32.const 8)) (i32.shr_u (local.get $w) (i32.const 8))) (i32.const 0xffff)))))
            (if (local.get $sum) (then
              (local.set $s (i32.and (i32.add (local.get $s) (local.get $w)) (i32.const 0xffff)))
              (local.set $w (local.get $s))))
            (i32.store16 (local.get $a) (local.get $w))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $tail2)))))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rowl)))
  )
)
