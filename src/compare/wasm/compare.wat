;; heightbench comparison kernels, WebAssembly SIMD. They are the JavaScript executor of src/compare/ made fast for a
;; one-shot process (no warm-up), and must give bit-for-bit its results (test/compare-kernel.test.ts).
;; Every address is a byte offset into the imported memory; arrays are named by what they are indexed by.
(module
  (import "env" "memory" (memory 1))

  ;; differences(a, b, count, out) -> n: the t in [0, count) with a[t] != b[t] (u16 codes), ascending, as i32 at out.
  ;; Sixteen codes per step (i16x8.ne on two vectors); only a step holding a difference walks its bitmask with ctz.
  (func $differences (export "differences") (param $a i32) (param $b i32) (param $count i32) (param $out i32) (result i32)
    (local $t i32) (local $vend i32) (local $n i32) (local $p i32) (local $m i32) (local $x v128) (local $y v128)
    (local.set $vend (i32.and (local.get $count) (i32.const -16)))
    (block $vdone (loop $v
      (br_if $vdone (i32.ge_u (local.get $t) (local.get $vend)))
      (local.set $p (i32.shl (local.get $t) (i32.const 1)))
      (local.set $x (i16x8.ne (v128.load (i32.add (local.get $a) (local.get $p))) (v128.load (i32.add (local.get $b) (local.get $p)))))
      (local.set $y (i16x8.ne (v128.load offset=16 (i32.add (local.get $a) (local.get $p))) (v128.load offset=16 (i32.add (local.get $b) (local.get $p)))))
      (if (v128.any_true (v128.or (local.get $x) (local.get $y)))
        (then
          (local.set $m (i32.or (i16x8.bitmask (local.get $x)) (i32.shl (i16x8.bitmask (local.get $y)) (i32.const 8))))
          (loop $bits
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (i32.add (local.get $t) (i32.ctz (local.get $m))))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br_if $bits (local.get $m)))))
      (local.set $t (i32.add (local.get $t) (i32.const 16)))
      (br $v)))
    (block $tdone (loop $tl
      (br_if $tdone (i32.ge_u (local.get $t) (local.get $count)))
      (local.set $p (i32.shl (local.get $t) (i32.const 1)))
      (if (i32.ne (i32.load16_u (i32.add (local.get $a) (local.get $p))) (i32.load16_u (i32.add (local.get $b) (local.get $p))))
        (then
          (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $t))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br $tl)))
    (local.get $n))

  ;; One region's tally: dense bin dq + 64 of region q (129 f64 bins per region) and its maximum |dq| and where.
  (func $bump (param $q i32) (param $dq i32) (param $ad i32) (param $k i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32)
    (local $addr i32)
    (local.set $addr (i32.add (local.get $dense) (i32.shl (i32.add (i32.mul (local.get $q) (i32.const 129)) (i32.add (local.get $dq) (i32.const 64))) (i32.const 3))))
    (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.const 1)))
    (if (i32.gt_s (local.get $ad) (i32.load (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2)))))
      (then
        (i32.store (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2))) (local.get $ad))
        (i32.store (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2))) (local.get $k)))))

  ;; tally(...) -> overflow count. The chunk's codes a, b (count pixels, first pixel index base) are scanned with
  ;; $differences into idx; for each differing pixel k = base + t (column i, row j of a W-wide grid):
  ;;  - |dq| > 64 (rare): k is appended to overflow and left to the caller (its block, regions and sparse bins);
  ;;  - else the block map (u16, bw blocks a row, B pixels a side) keeps the largest |dq| of the block, and region 0 (the whole map), region 1 + m for each mask m holding the pixel, region 1 + M + ring.
  ;; A mask holds the pixel when (strict ? r^2 > lo : r^2 >= lo) and r^2 <= hi and |dx|, |dy| within half (+-inf where unused),
  ;; r^2 = dx2[i] + dy2[j]: the predicate of maskContainsBounds (masks.ts). The ring is ringIndex(r^2, step).
  (func (export "tally")
    (param $a i32) (param $b i32) (param $count i32) (param $base i32) (param $idx i32)
    (param $W i32) (param $B i32) (param $bw i32) (param $block i32)
    (param $dx i32) (param $dx2 i32) (param $dy i32) (param $dy2 i32)
    (param $maskLo i32) (param $maskHi i32) (param $maskHalf i32) (param $maskStrict i32) (param $M i32)
    (param $step f64) (param $dense i32) (param $maxAbs i32) (param $maxAt i32) (param $overflow i32)
    (result i32)
    (local $n i32) (local $s i32) (local $t i32) (local $k i32) (local $i i32) (local $j i32) (local $dq i32) (local $ad i32)
    (local $addr i32) (local $m i32) (local $no i32) (local $r2 f64) (local $dxi f64) (local $dyj f64) (local $lo f64)
    (local $half f64) (local $kf f64) (local $in i32)
    (local.set $n (call $differences (local.get $a) (local.get $b) (local.get $count) (local.get $idx)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $s) (local.get $n)))
      (local.set $t (i32.load (i32.add (local.get $idx) (i32.shl (local.get $s) (i32.const 2)))))
      (local.set $k (i32.add (local.get $base) (local.get $t)))
      (local.set $j (i32.div_u (local.get $k) (local.get $W)))
      (local.set $i (i32.sub (local.get $k) (i32.mul (local.get $j) (local.get $W))))
      (local.set $dq (i32.sub (i32.load16_u (i32.add (local.get $a) (i32.shl (local.get $t) (i32.const 1))))
                              (i32.load16_u (i32.add (local.get $b) (i32.shl (local.get $t) (i32.const 1))))))
      (local.set $ad (select (i32.sub (i32.const 0) (local.get $dq)) (local.get $dq) (i32.lt_s (local.get $dq) (i32.const 0))))
      (if (i32.gt_u (local.get $ad) (i32.const 64))
        (then
          (i32.store (i32.add (local.get $overflow) (i32.shl (local.get $no) (i32.const 2))) (local.get $k))
          (local.set $no (i32.add (local.get $no) (i32.const 1))))
        (else
          (local.set $addr (i32.add (local.get $block) (i32.shl
            (i32.add (i32.mul (i32.div_u (local.get $j) (local.get $B)) (local.get $bw)) (i32.div_u (local.get $i) (local.get $B))) (i32.const 1))))
          (if (i32.gt_u (local.get $ad) (i32.load16_u (local.get $addr))) (then (i32.store16 (local.get $addr) (local.get $ad))))
          (local.set $r2 (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (local.get $i) (i32.const 3))))
                                  (f64.load (i32.add (local.get $dy2) (i32.shl (local.get $j) (i32.const 3))))))
          (local.set $dxi (f64.load (i32.add (local.get $dx) (i32.shl (local.get $i) (i32.const 3)))))
          (local.set $dyj (f64.load (i32.add (local.get $dy) (i32.shl (local.get $j) (i32.const 3)))))
          (call $bump (i32.const 0) (local.get $dq) (local.get $ad) (local.get $k) (local.get $dense) (local.get $maxAbs) (local.get $maxAt))
          (local.set $m (i32.const 0))
          (block $mdone (loop $masks
            (br_if $mdone (i32.ge_u (local.get $m) (local.get $M)))
            (local.set $lo (f64.load (i32.add (local.get $maskLo) (i32.shl (local.get $m) (i32.const 3)))))
            (local.set $half (f64.load (i32.add (local.get $maskHalf) (i32.shl (local.get $m) (i32.const 3)))))
            (local.set $in
              (i32.and
                (i32.and
                  (select (f64.gt (local.get $r2) (local.get $lo)) (f64.ge (local.get $r2) (local.get $lo))
                    (f64.ne (f64.load (i32.add (local.get $maskStrict) (i32.shl (local.get $m) (i32.const 3)))) (f64.const 0)))
                  (f64.le (local.get $r2) (f64.load (i32.add (local.get $maskHi) (i32.shl (local.get $m) (i32.const 3))))))
                (i32.and
                  (i32.and (f64.ge (local.get $dxi) (f64.neg (local.get $half))) (f64.le (local.get $dxi) (local.get $half)))
                  (i32.and (f64.ge (local.get $dyj) (f64.neg (local.get $half))) (f64.le (local.get $dyj) (local.get $half))))))
            (if (local.get $in)
              (then (call $bump (i32.add (local.get $m) (i32.const 1)) (local.get $dq) (local.get $ad) (local.get $k) (local.get $dense) (local.get $maxAbs) (local.get $maxAt))))
            (local.set $m (i32.add (local.get $m) (i32.const 1)))
            (br $masks)))
          ;; ringIndex: k = floor(sqrtr^2 / step), then one step down or up so that (k*step)^2 <= r^2 < ((k+1)*step)^2.
          (local.set $kf (f64.floor (f64.div (f64.sqrt (local.get $r2)) (local.get $step))))
          (if (f64.gt (f64.mul (f64.mul (local.get $kf) (local.get $step)) (f64.mul (local.get $kf) (local.get $step))) (local.get $r2))
            (then (local.set $kf (f64.sub (local.get $kf) (f64.const 1))))
            (else
              (if (f64.le (f64.mul (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step)) (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step))) (local.get $r2))
                (then (local.set $kf (f64.add (local.get $kf) (f64.const 1)))))))
          (call $bump (i32.add (i32.add (local.get $M) (i32.const 1)) (i32.trunc_f64_s (local.get $kf))) (local.get $dq) (local.get $ad) (local.get $k)
            (local.get $dense) (local.get $maxAbs) (local.get $maxAt))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $each)))
    (local.get $no))

  ;; countBelow(...): the double loop of ringPixelCounts (masks.ts) over any list of squared radii - for each distinct
  ;; row (dy^2, multiplicity) and each threshold t = thresholds[q], q in [0, T), the columns of the row with r^2 < t,
  ;; found from a guess floor((-sqrt(t - dy^2) - x0)/h) (left half) and ceil((sqrt(t - dy^2) - x0)/h) (right half) and
  ;; walked to the exact boundary with the same comparisons; below[q] += count * multiplicity. Mirrored rows count the
  ;; left half twice.
  (func (export "countBelow")
    (param $dx2 i32) (param $n i32) (param $mid i32) (param $mirrored i32) (param $guessable i32) (param $x0 f64) (param $h f64)
    (param $rowDy2 i32) (param $rowMult i32) (param $rows i32) (param $thresholds i32) (param $T i32) (param $below i32)
    (local $r i32) (local $k i32) (local $dy2 f64) (local $mult f64) (local $t f64) (local $rr f64) (local $p i32) (local $q i32)
    (local $c i32) (local $addr i32)
    (block $rdone (loop $rowl
      (br_if $rdone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $dy2 (f64.load (i32.add (local.get $rowDy2) (i32.shl (local.get $r) (i32.const 3)))))
      (local.set $mult (f64.load (i32.add (local.get $rowMult) (i32.shl (local.get $r) (i32.const 3)))))
      (local.set $k (i32.const 0))
      (block $kdone (loop $ring
        (br_if $kdone (i32.ge_s (local.get $k) (local.get $T)))
        (local.set $t (f64.load (i32.add (local.get $thresholds) (i32.shl (local.get $k) (i32.const 3)))))
        (if (f64.lt (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (local.get $mid) (i32.const 3)))) (local.get $dy2)) (local.get $t))
          (then
            (local.set $rr (f64.sqrt (f64.sub (local.get $t) (local.get $dy2))))
            (local.set $p (if (result i32) (local.get $guessable)
              (then (i32.trunc_f64_s (f64.min (f64.convert_i32_s (local.get $mid))
                      (f64.max (f64.const -1) (f64.floor (f64.div (f64.sub (f64.neg (local.get $rr)) (local.get $x0)) (local.get $h)))))))
              (else (local.get $mid))))
            (block $pd (loop $pdown
              (br_if $pd (i32.lt_s (local.get $p) (i32.const 0)))
              (br_if $pd (i32.eqz (f64.lt (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (local.get $p) (i32.const 3)))) (local.get $dy2)) (local.get $t))))
              (local.set $p (i32.sub (local.get $p) (i32.const 1)))
              (br $pdown)))
            (block $pu (loop $pup
              (br_if $pu (i32.ge_s (local.get $p) (local.get $mid)))
              (br_if $pu (i32.eqz (f64.ge (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (i32.add (local.get $p) (i32.const 1)) (i32.const 3)))) (local.get $dy2)) (local.get $t))))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br $pup)))
            (local.set $c (i32.sub (local.get $mid) (local.get $p)))
            (if (local.get $mirrored)
              (then (local.set $c (i32.shl (local.get $c) (i32.const 1))))
              (else
                (local.set $q (if (result i32) (local.get $guessable)
                  (then (i32.trunc_f64_s (f64.min (f64.convert_i32_s (local.get $n))
                          (f64.max (f64.convert_i32_s (i32.add (local.get $mid) (i32.const 1)))
                            (f64.ceil (f64.div (f64.sub (local.get $rr) (local.get $x0)) (local.get $h)))))))
                  (else (i32.add (local.get $mid) (i32.const 1)))))
                (block $qu (loop $qup
                  (br_if $qu (i32.ge_s (local.get $q) (local.get $n)))
                  (br_if $qu (i32.eqz (f64.lt (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (local.get $q) (i32.const 3)))) (local.get $dy2)) (local.get $t))))
                  (local.set $q (i32.add (local.get $q) (i32.const 1)))
                  (br $qup)))
                (block $qd (loop $qdown
                  (br_if $qd (i32.le_s (local.get $q) (i32.add (local.get $mid) (i32.const 1))))
                  (br_if $qd (i32.eqz (f64.ge (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (i32.sub (local.get $q) (i32.const 1)) (i32.const 3)))) (local.get $dy2)) (local.get $t))))
                  (local.set $q (i32.sub (local.get $q) (i32.const 1)))
                  (br $qdown)))
                (local.set $c (i32.add (local.get $c) (i32.sub (local.get $q) (i32.add (local.get $mid) (i32.const 1)))))))
            (local.set $addr (i32.add (local.get $below) (i32.shl (local.get $k) (i32.const 3))))
            (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.mul (f64.convert_i32_s (local.get $c)) (local.get $mult))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $ring)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rowl))))
)
