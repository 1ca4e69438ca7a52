;; heightbench float-pair kernels: the scan of compare.ts scanFloatPairs without attribution — `scan` for a summary
;; (CompareOptions.summary: the whole map and the masks given, no rings, no float block map, both sides float32) and
;; `full` for a full comparison (rings, float block maps, wide Δq bins; either side float32 or codes). Each must give
;; bit for bit what the JavaScript scan gives (test/compare-kernel.test.ts): every sum is Neumaier's
;; (metric-accumulators.ts CompensatedSum) in float64, fed the same values in the same pixel order; WebAssembly's f64
;; arithmetic is IEEE's, as JavaScript's is. Every address is a byte offset into the imported memory.
;;
;; Region q's float accumulator at acc + 56q: sum, c, sumSq, cSq (`full`: sum, sumSq, c, cSq), maxAbsM, maxSignedM,
;; maxAbsMAt (f64 each).
;; Region q's code tally: dense bins at dense + 8·129q (f64, index dq + 64), maxAbs and maxAt (i32) — CodeTally's.
;; state: [0] non-finite on the generated side, [1] on the reference side, [2] excluded pixels listed, [3] overflow
;; pixels listed (i32 each), cumulative over chunks.
(module
  (import "env" "memory" (memory 1))

  ;; Neumaier's step on the pair (sum, c) at p: t = sum + x; c += |sum| >= |x| ? (sum - t) + x : (x - t) + sum.
  (func $nadd (param $p i32) (param $x f64)
    (local $s f64) (local $t f64)
    (local.set $s (f64.load (local.get $p)))
    (local.set $t (f64.add (local.get $s) (local.get $x)))
    (if (f64.ge (f64.abs (local.get $s)) (f64.abs (local.get $x)))
      (then (f64.store offset=8 (local.get $p)
        (f64.add (f64.load offset=8 (local.get $p)) (f64.add (f64.sub (local.get $s) (local.get $t)) (local.get $x)))))
      (else (f64.store offset=8 (local.get $p)
        (f64.add (f64.load offset=8 (local.get $p)) (f64.add (f64.sub (local.get $x) (local.get $t)) (local.get $s))))))
    (f64.store (local.get $p) (local.get $t)))

  ;; RegionAccumulator.addFloat: nothing for dm = 0; both sums; the first largest |dm|, its sign and pixel.
  (func $addFloat (param $f i32) (param $dm f64) (param $k i32)
    (local $a f64)
    (if (f64.eq (local.get $dm) (f64.const 0)) (then (return)))
    (call $nadd (local.get $f) (local.get $dm))
    (call $nadd (i32.add (local.get $f) (i32.const 16)) (f64.mul (local.get $dm) (local.get $dm)))
    (local.set $a (f64.abs (local.get $dm)))
    (if (f64.gt (local.get $a) (f64.load offset=32 (local.get $f)))
      (then
        (f64.store offset=32 (local.get $f) (local.get $a))
        (f64.store offset=40 (local.get $f) (local.get $dm))
        (f64.store offset=48 (local.get $f) (f64.convert_i32_u (local.get $k))))))

  ;; CodeTally.add for 0 < |dq| <= 64: the dense bin and the first largest |dq| of region q.
  (func $addCode (param $q i32) (param $dq i32) (param $ad i32) (param $k i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32)
    (local $addr i32)
    (local.set $addr (i32.add (local.get $dense) (i32.shl (i32.add (i32.mul (local.get $q) (i32.const 129)) (i32.add (local.get $dq) (i32.const 64))) (i32.const 3))))
    (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.const 1)))
    (if (i32.gt_s (local.get $ad) (i32.load (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2)))))
      (then
        (i32.store (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2))) (local.get $ad))
        (i32.store (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2))) (local.get $k)))))

  ;; scan(...): pixels [base, base + count) of a W-wide grid, chunk-relative arrays gh, rh (f32) and gc, rc (u16).
  ;; A pixel with a non-finite value on either side (x - x != 0) is counted and listed at excl, nothing else. Else
  ;; dq = gc - rc, dm = gh - rh (float64); a pixel with both zero is skipped; otherwise region 0 and each mask m
  ;; holding it (the predicate of masks.ts maskContainsBounds on r² = dx2[i] + dy2[j], dx[i], dy[j]) get dm, and
  ;; dq when 0 < |dq| <= 64; the block map (u16, bw a row, B-pixel blocks) keeps the largest |dq|; a pixel with
  ;; |dq| > 64 is listed at overflow for the caller (the sparse bins of every region holding it).
  (func (export "scan")
    (param $gh i32) (param $rh i32) (param $gc i32) (param $rc i32) (param $count i32) (param $base i32)
    (param $W i32) (param $B i32) (param $bw i32) (param $block i32)
    (param $dx i32) (param $dx2 i32) (param $dy i32) (param $dy2 i32)
    (param $maskLo i32) (param $maskHi i32) (param $maskHalf i32) (param $maskStrict i32) (param $M i32)
    (param $acc i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32)
    (param $state i32) (param $excl i32) (param $overflow i32)
    (local $t i32) (local $k i32) (local $i i32) (local $j i32) (local $a f64) (local $b f64) (local $badA i32) (local $badB i32)
    (local $dq i32) (local $ad i32) (local $dm f64) (local $addr i32) (local $r2 f64) (local $dxi f64) (local $dyj f64)
    (local $m i32) (local $lo f64) (local $half f64) (local $in i32) (local $over i32)
    (local.set $j (i32.div_u (local.get $base) (local.get $W)))
    (local.set $i (i32.sub (local.get $base) (i32.mul (local.get $j) (local.get $W))))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $t) (local.get $count)))
      (local.set $k (i32.add (local.get $base) (local.get $t)))
      (local.set $a (f64.promote_f32 (f32.load (i32.add (local.get $gh) (i32.shl (local.get $t) (i32.const 2))))))
      (local.set $b (f64.promote_f32 (f32.load (i32.add (local.get $rh) (i32.shl (local.get $t) (i32.const 2))))))
      (local.set $badA (f64.ne (f64.sub (local.get $a) (local.get $a)) (f64.const 0)))
      (local.set $badB (f64.ne (f64.sub (local.get $b) (local.get $b)) (f64.const 0)))
      (if (i32.or (local.get $badA) (local.get $badB))
        (then
          (i32.store (local.get $state) (i32.add (i32.load (local.get $state)) (local.get $badA)))
          (i32.store offset=4 (local.get $state) (i32.add (i32.load offset=4 (local.get $state)) (local.get $badB)))
          (i32.store (i32.add (local.get $excl) (i32.shl (i32.load offset=8 (local.get $state)) (i32.const 2))) (local.get $k))
          (i32.store offset=8 (local.get $state) (i32.add (i32.load offset=8 (local.get $state)) (i32.const 1))))
        (else
          (local.set $dq (i32.sub (i32.load16_u (i32.add (local.get $gc) (i32.shl (local.get $t) (i32.const 1))))
                                  (i32.load16_u (i32.add (local.get $rc) (i32.shl (local.get $t) (i32.const 1))))))
          (local.set $dm (f64.sub (local.get $a) (local.get $b)))
          (if (i32.or (local.get $dq) (f64.ne (local.get $dm) (f64.const 0)))
            (then
              (local.set $ad (select (i32.sub (i32.const 0) (local.get $dq)) (local.get $dq) (i32.lt_s (local.get $dq) (i32.const 0))))
              (local.set $over (i32.gt_u (local.get $ad) (i32.const 64)))
              (if (i32.and (i32.ne (local.get $dq) (i32.const 0)) (i32.eqz (local.get $over)))
                (then (call $addCode (i32.const 0) (local.get $dq) (local.get $ad) (local.get $k) (local.get $dense) (local.get $maxAbs) (local.get $maxAt))))
              (call $addFloat (local.get $acc) (local.get $dm) (local.get $k))
              (local.set $addr (i32.add (local.get $block) (i32.shl
                (i32.add (i32.mul (i32.div_u (local.get $j) (local.get $B)) (local.get $bw)) (i32.div_u (local.get $i) (local.get $B))) (i32.const 1))))
              (if (i32.gt_u (local.get $ad) (i32.load16_u (local.get $addr))) (then (i32.store16 (local.get $addr) (local.get $ad))))
              (local.set $r2 (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (local.get $i) (i32.const 3))))
                                      (f64.load (i32.add (local.get $dy2) (i32.shl (local.get $j) (i32.const 3))))))
              (local.set $dxi (f64.load (i32.add (local.get $dx) (i32.shl (local.get $i) (i32.const 3)))))
              (local.set $dyj (f64.load (i32.add (local.get $dy) (i32.shl (local.get $j) (i32.const 3)))))
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
                  (then
                    (if (i32.and (i32.ne (local.get $dq) (i32.const 0)) (i32.eqz (local.get $over)))
                      (then (call $addCode (i32.add (local.get $m) (i32.const 1)) (local.get $dq) (local.get $ad) (local.get $k)
                        (local.get $dense) (local.get $maxAbs) (local.get $maxAt))))
                    (call $addFloat (i32.add (local.get $acc) (i32.mul (i32.add (local.get $m) (i32.const 1)) (i32.const 56))) (local.get $dm) (local.get $k))))
                (local.set $m (i32.add (local.get $m) (i32.const 1)))
                (br $masks)))
              (if (local.get $over)
                (then
                  (i32.store (i32.add (local.get $overflow) (i32.shl (i32.load offset=12 (local.get $state)) (i32.const 2))) (local.get $k))
                  (i32.store offset=12 (local.get $state) (i32.add (i32.load offset=12 (local.get $state)) (i32.const 1)))))))))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.eq (local.get $i) (local.get $W))
        (then (local.set $i (i32.const 0)) (local.set $j (i32.add (local.get $j) (i32.const 1)))))
      (br $each))))


  ;; Region q of the full scan, a pixel with dq or dm != 0 (addCode, then addFloat, of RegionAccumulator): for dq != 0
  ;; the dense bin (|dq| <= 64) or the wide bin, and the first largest |dq|. Region q's wide bins (u32 at dq + 65535)
  ;; are allocated on its first wide dq (8 pages grown; the pointer at widePtr + 4q); a wide dq first counted in region
  ;; q appends (q, dq) to the events at state[4] (WideBins' order).
  (func $addRegion (param $q i32) (param $dq i32) (param $ad i32) (param $dm f64) (param $k i32) (param $acc i32) (param $dense i32)
    (param $maxAbs i32) (param $maxAt i32) (param $widePtr i32) (param $events i32) (param $state i32)
    (local $addr i32) (local $f i32) (local $x f64) (local $sv v128) (local $tv v128) (local $xv v128) (local $p i32) (local $c i32) (local $g i32)
        (if (local.get $dq)
          (then
            (if (i32.le_u (local.get $ad) (i32.const 64))
              (then
                (local.set $addr (i32.add (local.get $dense) (i32.shl (i32.add (i32.mul (local.get $q) (i32.const 129)) (i32.add (local.get $dq) (i32.const 64))) (i32.const 3))))
                (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.const 1))))
              (else
                (local.set $p (i32.load (i32.add (local.get $widePtr) (i32.shl (local.get $q) (i32.const 2)))))
                (if (i32.eqz (local.get $p))
                  (then
                    (local.set $g (memory.grow (i32.const 8)))
                    (if (i32.eq (local.get $g) (i32.const -1)) (then (unreachable)))
                    (local.set $p (i32.shl (local.get $g) (i32.const 16)))
                    (i32.store (i32.add (local.get $widePtr) (i32.shl (local.get $q) (i32.const 2))) (local.get $p))))
                (local.set $addr (i32.add (local.get $p) (i32.shl (i32.add (local.get $dq) (i32.const 65535)) (i32.const 2))))
                (local.set $c (i32.load (local.get $addr)))
                (i32.store (local.get $addr) (i32.add (local.get $c) (i32.const 1)))
                (if (i32.eqz (local.get $c))
                  (then
                    (local.set $addr (i32.add (local.get $events) (i32.shl (i32.load offset=16 (local.get $state)) (i32.const 3))))
                    (i32.store (local.get $addr) (local.get $q))
                    (i32.store offset=4 (local.get $addr) (local.get $dq))
                    (i32.store offset=16 (local.get $state) (i32.add (i32.load offset=16 (local.get $state)) (i32.const 1)))))))
            (local.set $addr (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2))))
            (if (i32.gt_s (local.get $ad) (i32.load (local.get $addr)))
              (then
                (i32.store (local.get $addr) (local.get $ad))
                (i32.store (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2))) (local.get $k))))))
        ;; addFloat on the accumulator at f = acc + 56q, for dm != 0: both Neumaier steps at once, lane 0 the sum of dm
        ;; and lane 1 that of dm² (f: sum, sumSq, c, cSq), each lane the scalar step's IEEE operations.
        (if (f64.ne (local.get $dm) (f64.const 0))
          (then
            (local.set $f (i32.add (local.get $acc) (i32.mul (local.get $q) (i32.const 56))))
            (local.set $xv (f64x2.replace_lane 1 (f64x2.splat (local.get $dm)) (f64.mul (local.get $dm) (local.get $dm))))
            (local.set $sv (v128.load (local.get $f)))
            (local.set $tv (f64x2.add (local.get $sv) (local.get $xv)))
            (v128.store offset=16 (local.get $f) (f64x2.add (v128.load offset=16 (local.get $f))
              (v128.bitselect
                (f64x2.add (f64x2.sub (local.get $sv) (local.get $tv)) (local.get $xv))
                (f64x2.add (f64x2.sub (local.get $xv) (local.get $tv)) (local.get $sv))
                (f64x2.ge (f64x2.abs (local.get $sv)) (f64x2.abs (local.get $xv))))))
            (v128.store (local.get $f) (local.get $tv))
            (local.set $x (f64.abs (local.get $dm)))
            (if (f64.gt (local.get $x) (f64.load offset=32 (local.get $f)))
              (then
                (f64.store offset=32 (local.get $f) (local.get $x))
                (f64.store offset=40 (local.get $f) (local.get $dm))
                (f64.store offset=48 (local.get $f) (f64.convert_i32_u (local.get $k))))))))

  ;; Ring r (region q = 1 + M + r): as $addRegion, but a wide dq only adds to the ring's exact sums at ringSums + 24r
  ;; (count, Σdq, Σdq² as i64): a ring states no histogram, so its bins are not kept.
  (func $addRing (param $q i32) (param $r i32) (param $dq i32) (param $ad i32) (param $dm f64) (param $k i32) (param $acc i32) (param $dense i32)
    (param $maxAbs i32) (param $maxAt i32) (param $ringSums i32)
    (local $addr i32) (local $f i32) (local $x f64) (local $sv v128) (local $tv v128) (local $xv v128)
        (if (local.get $dq)
          (then
            (if (i32.le_u (local.get $ad) (i32.const 64))
              (then
                (local.set $addr (i32.add (local.get $dense) (i32.shl (i32.add (i32.mul (local.get $q) (i32.const 129)) (i32.add (local.get $dq) (i32.const 64))) (i32.const 3))))
                (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.const 1))))
              (else
                (local.set $addr (i32.add (local.get $ringSums) (i32.mul (local.get $r) (i32.const 24))))
                (i64.store (local.get $addr) (i64.add (i64.load (local.get $addr)) (i64.const 1)))
                (i64.store offset=8 (local.get $addr) (i64.add (i64.load offset=8 (local.get $addr)) (i64.extend_i32_s (local.get $dq))))
                (i64.store offset=16 (local.get $addr) (i64.add (i64.load offset=16 (local.get $addr))
                  (i64.mul (i64.extend_i32_u (local.get $ad)) (i64.extend_i32_u (local.get $ad)))))))
            (local.set $addr (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2))))
            (if (i32.gt_s (local.get $ad) (i32.load (local.get $addr)))
              (then
                (i32.store (local.get $addr) (local.get $ad))
                (i32.store (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2))) (local.get $k))))))
        ;; addFloat on the accumulator at f = acc + 56q, for dm != 0: both Neumaier steps at once, lane 0 the sum of dm
        ;; and lane 1 that of dm² (f: sum, sumSq, c, cSq), each lane the scalar step's IEEE operations.
        (if (f64.ne (local.get $dm) (f64.const 0))
          (then
            (local.set $f (i32.add (local.get $acc) (i32.mul (local.get $q) (i32.const 56))))
            (local.set $xv (f64x2.replace_lane 1 (f64x2.splat (local.get $dm)) (f64.mul (local.get $dm) (local.get $dm))))
            (local.set $sv (v128.load (local.get $f)))
            (local.set $tv (f64x2.add (local.get $sv) (local.get $xv)))
            (v128.store offset=16 (local.get $f) (f64x2.add (v128.load offset=16 (local.get $f))
              (v128.bitselect
                (f64x2.add (f64x2.sub (local.get $sv) (local.get $tv)) (local.get $xv))
                (f64x2.add (f64x2.sub (local.get $xv) (local.get $tv)) (local.get $sv))
                (f64x2.ge (f64x2.abs (local.get $sv)) (f64x2.abs (local.get $xv))))))
            (v128.store (local.get $f) (local.get $tv))
            (local.set $x (f64.abs (local.get $dm)))
            (if (f64.gt (local.get $x) (f64.load offset=32 (local.get $f)))
              (then
                (f64.store offset=32 (local.get $f) (local.get $x))
                (f64.store offset=40 (local.get $f) (local.get $dm))
                (f64.store offset=48 (local.get $f) (f64.convert_i32_u (local.get $k))))))))

  ;; full(...): addDifference of compare.ts for pixels [base, base + count) — as scan, and besides: a side whose flag
  ;; (genFloat, refFloat) is 0 holds codes, its metres table[code] (f64); region 1 + M + ringIndex(r², step) of
  ;; `rings`; the float block maps keep the first largest |dm| (blockFA, f64) and its dm (blockF, f32); wide dq are
  ;; tallied here ($addRegion, $addRing). state: [0], [1], [2] as scan's, [4] wide events listed.
  ;; And floatExtras of compare.ts, as f64 counts at extras: [0] dm = 0, [1] dm != 0, [2] |dm| > tolM, [3 + e] dm > 0
  ;; and [13 + e] dm < 0 in decade e, the last of the 10 edges (mm) that 1000·|dm| exceeds (e = 0 when none does);
  ;; clampCounts: [23] heights < rmin and [24] > rmax on a float generated side, [25] and [26] on a float reference.
  (func (export "full")
    (param $gh i32) (param $rh i32) (param $gc i32) (param $rc i32) (param $count i32) (param $base i32)
    (param $genFloat i32) (param $refFloat i32) (param $table i32)
    (param $W i32) (param $B i32) (param $bw i32) (param $block i32) (param $blockF i32) (param $blockFA i32)
    (param $dx i32) (param $dx2 i32) (param $dy i32) (param $dy2 i32)
    (param $maskLo i32) (param $maskHi i32) (param $maskHalf i32) (param $maskStrict i32) (param $M i32)
    (param $step f64) (param $rings i32)
    (param $acc i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32) (param $widePtr i32) (param $events i32)
    (param $ringSums i32) (param $state i32) (param $excl i32) (param $edges i32) (param $tolM f64) (param $extras i32)
    (param $rmin f64) (param $rmax f64)
    (local $t i32) (local $k i32) (local $i i32) (local $j i32) (local $a f64) (local $b f64) (local $badA i32) (local $badB i32)
    (local $dq i32) (local $ad i32) (local $dm f64) (local $am f64) (local $bi i32) (local $addr i32) (local $r2 f64) (local $dxi f64)
    (local $dyj f64) (local $m i32) (local $lo f64) (local $half f64) (local $kf f64) (local $ring i32) (local $q i32) (local $e i32)
    (local $mm f64) (local $ib i32) (local $bx i32) (local $rowBlock i32) (local $lo2 f64) (local $hi2 f64)
    (local.set $j (i32.div_u (local.get $base) (local.get $W)))
    (local.set $i (i32.sub (local.get $base) (i32.mul (local.get $j) (local.get $W))))
    ;; The block of (i, j) is rowBlock + bx, kept as i and j advance (no division a pixel).
    (local.set $bx (i32.div_u (local.get $i) (local.get $B)))
    (local.set $ib (i32.sub (local.get $i) (i32.mul (local.get $bx) (local.get $B))))
    (local.set $rowBlock (i32.mul (i32.div_u (local.get $j) (local.get $B)) (local.get $bw)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $t) (local.get $count)))
      (local.set $k (i32.add (local.get $base) (local.get $t)))
      (local.set $a (if (result f64) (local.get $genFloat)
        (then (f64.promote_f32 (f32.load (i32.add (local.get $gh) (i32.shl (local.get $t) (i32.const 2))))))
        (else (f64.load (i32.add (local.get $table) (i32.shl (i32.load16_u (i32.add (local.get $gc) (i32.shl (local.get $t) (i32.const 1)))) (i32.const 3)))))))
      (local.set $b (if (result f64) (local.get $refFloat)
        (then (f64.promote_f32 (f32.load (i32.add (local.get $rh) (i32.shl (local.get $t) (i32.const 2))))))
        (else (f64.load (i32.add (local.get $table) (i32.shl (i32.load16_u (i32.add (local.get $rc) (i32.shl (local.get $t) (i32.const 1)))) (i32.const 3)))))))
      (if (local.get $genFloat)
        (then
          (if (f64.lt (local.get $a) (local.get $rmin))
            (then (f64.store offset=184 (local.get $extras) (f64.add (f64.load offset=184 (local.get $extras)) (f64.const 1))))
            (else (if (f64.gt (local.get $a) (local.get $rmax))
              (then (f64.store offset=192 (local.get $extras) (f64.add (f64.load offset=192 (local.get $extras)) (f64.const 1)))))))))
      (if (local.get $refFloat)
        (then
          (if (f64.lt (local.get $b) (local.get $rmin))
            (then (f64.store offset=200 (local.get $extras) (f64.add (f64.load offset=200 (local.get $extras)) (f64.const 1))))
            (else (if (f64.gt (local.get $b) (local.get $rmax))
              (then (f64.store offset=208 (local.get $extras) (f64.add (f64.load offset=208 (local.get $extras)) (f64.const 1)))))))))
      (local.set $badA (f64.ne (f64.sub (local.get $a) (local.get $a)) (f64.const 0)))
      (local.set $badB (f64.ne (f64.sub (local.get $b) (local.get $b)) (f64.const 0)))
      (if (i32.or (local.get $badA) (local.get $badB))
        (then
          (i32.store (local.get $state) (i32.add (i32.load (local.get $state)) (local.get $badA)))
          (i32.store offset=4 (local.get $state) (i32.add (i32.load offset=4 (local.get $state)) (local.get $badB)))
          (i32.store (i32.add (local.get $excl) (i32.shl (i32.load offset=8 (local.get $state)) (i32.const 2))) (local.get $k))
          (i32.store offset=8 (local.get $state) (i32.add (i32.load offset=8 (local.get $state)) (i32.const 1))))
        (else
          (local.set $dq (i32.sub (i32.load16_u (i32.add (local.get $gc) (i32.shl (local.get $t) (i32.const 1))))
                                  (i32.load16_u (i32.add (local.get $rc) (i32.shl (local.get $t) (i32.const 1))))))
          (local.set $dm (f64.sub (local.get $a) (local.get $b)))
          (local.set $am (f64.abs (local.get $dm)))
          (if (f64.eq (local.get $dm) (f64.const 0))
            (then (f64.store (local.get $extras) (f64.add (f64.load (local.get $extras)) (f64.const 1))))
            (else
              (f64.store offset=8 (local.get $extras) (f64.add (f64.load offset=8 (local.get $extras)) (f64.const 1)))
              (if (f64.gt (local.get $am) (local.get $tolM))
                (then (f64.store offset=16 (local.get $extras) (f64.add (f64.load offset=16 (local.get $extras)) (f64.const 1)))))
              (local.set $mm (f64.mul (local.get $am) (f64.const 1000)))
              (local.set $e (i32.const 9))
              (block $edone (loop $edge
                (br_if $edone (i32.eqz (local.get $e)))
                (br_if $edone (f64.gt (local.get $mm) (f64.load (i32.add (local.get $edges) (i32.shl (local.get $e) (i32.const 3))))))
                (local.set $e (i32.sub (local.get $e) (i32.const 1)))
                (br $edge)))
              (local.set $addr (i32.add (local.get $extras) (i32.shl (i32.add (local.get $e) (select (i32.const 13) (i32.const 3) (f64.lt (local.get $dm) (f64.const 0)))) (i32.const 3))))
              (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.const 1)))))
          (if (i32.or (local.get $dq) (f64.ne (local.get $dm) (f64.const 0)))
            (then
              (local.set $ad (select (i32.sub (i32.const 0) (local.get $dq)) (local.get $dq) (i32.lt_s (local.get $dq) (i32.const 0))))
              (call $addRegion (i32.const 0) (local.get $dq) (local.get $ad) (local.get $dm) (local.get $k) (local.get $acc) (local.get $dense)
                (local.get $maxAbs) (local.get $maxAt) (local.get $widePtr) (local.get $events) (local.get $state))
              (local.set $bi (i32.add (local.get $rowBlock) (local.get $bx)))
              (local.set $addr (i32.add (local.get $block) (i32.shl (local.get $bi) (i32.const 1))))
              (if (i32.gt_u (local.get $ad) (i32.load16_u (local.get $addr))) (then (i32.store16 (local.get $addr) (local.get $ad))))
              (local.set $addr (i32.add (local.get $blockFA) (i32.shl (local.get $bi) (i32.const 3))))
              (if (f64.gt (local.get $am) (f64.load (local.get $addr)))
                (then
                  (f64.store (local.get $addr) (local.get $am))
                  (f32.store (i32.add (local.get $blockF) (i32.shl (local.get $bi) (i32.const 2))) (f32.demote_f64 (local.get $dm)))))
              (local.set $r2 (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (local.get $i) (i32.const 3))))
                                      (f64.load (i32.add (local.get $dy2) (i32.shl (local.get $j) (i32.const 3))))))
              (local.set $dxi (f64.load (i32.add (local.get $dx) (i32.shl (local.get $i) (i32.const 3)))))
              (local.set $dyj (f64.load (i32.add (local.get $dy) (i32.shl (local.get $j) (i32.const 3)))))
              (local.set $m (i32.const 0))
              (block $mdone (loop $masks
                (br_if $mdone (i32.ge_u (local.get $m) (local.get $M)))
                (local.set $lo (f64.load (i32.add (local.get $maskLo) (i32.shl (local.get $m) (i32.const 3)))))
                (local.set $half (f64.load (i32.add (local.get $maskHalf) (i32.shl (local.get $m) (i32.const 3)))))
                (if (i32.and
                      (i32.and
                        (select (f64.gt (local.get $r2) (local.get $lo)) (f64.ge (local.get $r2) (local.get $lo))
                          (f64.ne (f64.load (i32.add (local.get $maskStrict) (i32.shl (local.get $m) (i32.const 3)))) (f64.const 0)))
                        (f64.le (local.get $r2) (f64.load (i32.add (local.get $maskHi) (i32.shl (local.get $m) (i32.const 3))))))
                      (i32.and
                        (i32.and (f64.ge (local.get $dxi) (f64.neg (local.get $half))) (f64.le (local.get $dxi) (local.get $half)))
                        (i32.and (f64.ge (local.get $dyj) (f64.neg (local.get $half))) (f64.le (local.get $dyj) (local.get $half)))))
                  (then
                    (call $addRegion (i32.add (local.get $m) (i32.const 1)) (local.get $dq) (local.get $ad) (local.get $dm) (local.get $k) (local.get $acc)
                      (local.get $dense) (local.get $maxAbs) (local.get $maxAt) (local.get $widePtr) (local.get $events) (local.get $state))))
                (local.set $m (i32.add (local.get $m) (i32.const 1)))
                (br $masks)))
              ;; ringIndex (masks.ts), as compare.wat's tally computes it — unless r² lies between the squared edges
              ;; (lo2 <= r² < hi2) of the last ring found, the one ring it can be in (neighbours share rings).
              (if (i32.eqz (i32.and (f64.ge (local.get $r2) (local.get $lo2)) (f64.lt (local.get $r2) (local.get $hi2))))
                (then
                  (local.set $kf (f64.floor (f64.div (f64.sqrt (local.get $r2)) (local.get $step))))
                  (if (f64.gt (f64.mul (f64.mul (local.get $kf) (local.get $step)) (f64.mul (local.get $kf) (local.get $step))) (local.get $r2))
                    (then (local.set $kf (f64.sub (local.get $kf) (f64.const 1))))
                    (else
                      (if (f64.le (f64.mul (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step)) (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step))) (local.get $r2))
                        (then (local.set $kf (f64.add (local.get $kf) (f64.const 1)))))))
                  ;; A ring outside the profile is a bug (the JavaScript scan would fail on it too).
                  (if (i32.eqz (i32.and (f64.ge (local.get $kf) (f64.const 0)) (f64.lt (local.get $kf) (f64.convert_i32_u (local.get $rings)))))
                    (then (unreachable)))
                  (local.set $ring (i32.trunc_f64_s (local.get $kf)))
                  (local.set $lo2 (f64.mul (f64.mul (local.get $kf) (local.get $step)) (f64.mul (local.get $kf) (local.get $step))))
                  (local.set $hi2 (f64.mul (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step)) (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step))))
                  ;; Cached only when the ring found satisfies the edges itself.
                  (if (i32.eqz (i32.and (f64.ge (local.get $r2) (local.get $lo2)) (f64.lt (local.get $r2) (local.get $hi2))))
                    (then (local.set $lo2 (f64.const 0)) (local.set $hi2 (f64.const 0))))))
              (local.set $q (i32.add (i32.add (local.get $M) (i32.const 1)) (local.get $ring)))
              (call $addRing (local.get $q) (local.get $ring) (local.get $dq) (local.get $ad) (local.get $dm) (local.get $k) (local.get $acc)
                (local.get $dense) (local.get $maxAbs) (local.get $maxAt) (local.get $ringSums))))))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (local.set $ib (i32.add (local.get $ib) (i32.const 1)))
      (if (i32.eq (local.get $ib) (local.get $B))
        (then (local.set $ib (i32.const 0)) (local.set $bx (i32.add (local.get $bx) (i32.const 1)))))
      (if (i32.eq (local.get $i) (local.get $W))
        (then
          (local.set $i (i32.const 0))
          (local.set $ib (i32.const 0))
          (local.set $bx (i32.const 0))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (local.set $rowBlock (i32.mul (i32.div_u (local.get $j) (local.get $B)) (local.get $bw)))))
      (br $each))))
)
