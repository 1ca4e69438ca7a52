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


  ;; The full scan in sub-blocks of at most $sub pixels: $prepare visits each pixel once (exclusions, clampCounts,
  ;; the block maps) and writes its dq and dm to the scratch (dq = dm = 0 for a pixel left out); then $tallyExtras
  ;; counts floatExtras from the scratch's dm (called by $prepare, or by $regions: the caller's choice), $region
  ;; passes once over the sub-block for the whole map and for each mask, and $rings once for the rings (each pixel's
  ;; ring found there), each with its accumulators in locals. Each region still sees its pixels in pixel order, so
  ;; its sums, its first maxima and its wide Δq order are those of one pass over every region a pixel.
  ;; [R] The ring is found in the rings pass, not in $prepare, and $prepare takes four pixels a step: one thread
  ;;     prepares while another passes the regions, the whole map's pass on whichever the data favours
  ;;     (float-kernel.ts WHOLE_HERE_WIDE_SHARE), and the tally goes to whichever keeps up.
  ;; Scratch (12·sub bytes): dq (i32) at scratch, dm (f64) at scratch + 4·sub.

  ;; Pass 1 over pixels [t0, t0 + n) of the chunk (pixel index base + t).
  (func $prepare (export "prepare")
    (param $gh i32) (param $rh i32) (param $gc i32) (param $rc i32) (param $t0 i32) (param $n i32) (param $base i32)
    (param $genFloat i32) (param $refFloat i32) (param $table i32)
    (param $W i32) (param $B i32) (param $bw i32) (param $block i32) (param $blockF i32) (param $blockFA i32)
    (param $state i32) (param $excl i32) (param $edges i32) (param $tolM f64) (param $extras i32)
    (param $rmin f64) (param $rmax f64) (param $scratch i32) (param $sub i32) (param $tally i32) (param $decode i32)
    (local $t i32) (local $u i32) (local $k i32) (local $i i32) (local $j i32) (local $a f64) (local $b f64) (local $badA i32) (local $badB i32)
    (local $dq i32) (local $ad i32) (local $dm f64) (local $am f64) (local $bi i32) (local $addr i32)
    (local $ib i32) (local $bx i32) (local $rowBlock i32)
    (local $nExcl f64) (local $gLo f64) (local $gHi f64) (local $rLo f64) (local $rHi f64)
    (local $dqS i32) (local $dmS i32) (local $lad i32) (local $lam f64) (local $ldm f64) (local $gt i32)
    (local $st i32) (local $skip i32) (local $a01 v128) (local $a23 v128) (local $b01 v128) (local $b23 v128)
    (local $d01 v128) (local $d23 v128) (local $m01 v128) (local $m23 v128) (local $dq4 v128) (local $lo v128) (local $q4 v128)
    (local $cLoG v128) (local $cHiG v128) (local $cLoR v128) (local $cHiR v128) (local $vmin v128) (local $vmax v128)
    (local $pa f64) (local $pd f64) (local $qa f64) (local $qd f64) (local $x f64)
    (local.set $dqS (local.get $scratch))
    (local.set $dmS (i32.add (local.get $scratch) (i32.shl (local.get $sub) (i32.const 2))))
    (local.set $k (i32.add (local.get $base) (local.get $t0)))
    (local.set $j (i32.div_u (local.get $k) (local.get $W)))
    (local.set $i (i32.sub (local.get $k) (i32.mul (local.get $j) (local.get $W))))
    ;; The block of (i, j) is rowBlock + bx, kept as i and j advance (no division a pixel).
    (local.set $bx (i32.div_u (local.get $i) (local.get $B)))
    (local.set $ib (i32.sub (local.get $i) (i32.mul (local.get $bx) (local.get $B))))
    (local.set $rowBlock (i32.mul (i32.div_u (local.get $j) (local.get $B)) (local.get $bw)))
    (local.set $vmin (f64x2.splat (local.get $rmin)))
    (local.set $vmax (f64x2.splat (local.get $rmax)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $u) (local.get $n)))
      (local.set $t (i32.add (local.get $t0) (local.get $u)))
      (local.set $st (i32.const 1))
      ;; Four pixels at once where they lie in one block of one row and the sub-block, and all are finite (else
      ;; they go one by one below): the same values, counts and block maxima as four single steps. A side of codes
      ;; is decoded as decodeHeightR16 of encoding.ts, (q · span) / 65535 + min: the three IEEE operations that made
      ;; each entry of the decode table, so the same doubles as table[q]. Span and min are read from memory at each
      ;; use (decode: f64 each): V8 compiles that to faster code here than a v128 local or a parameter kept across
      ;; the loop, and a call would not be inlined.
      (if (i32.and (i32.eqz (local.get $skip))
            (i32.and (i32.le_u (i32.add (local.get $u) (i32.const 4)) (local.get $n))
              (i32.and (i32.le_u (i32.add (local.get $ib) (i32.const 4)) (local.get $B))
                (i32.le_u (i32.add (local.get $i) (i32.const 4)) (local.get $W)))))
        (then
          (if (local.get $genFloat)
            (then
              (local.set $addr (i32.add (local.get $gh) (i32.shl (local.get $t) (i32.const 2))))
              (local.set $a01 (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $addr))))
              (local.set $a23 (f64x2.promote_low_f32x4 (v128.load64_zero offset=8 (local.get $addr)))))
            (else
              (local.set $q4 (v128.load16x4_u (i32.add (local.get $gc) (i32.shl (local.get $t) (i32.const 1)))))
              (local.set $a01 (f64x2.add (f64x2.div (f64x2.mul (f64x2.convert_low_i32x4_u (local.get $q4)) (f64x2.splat (f64.load (local.get $decode))))
                (v128.const f64x2 65535 65535)) (f64x2.splat (f64.load offset=8 (local.get $decode)))))
              (local.set $a23 (f64x2.add (f64x2.div (f64x2.mul (f64x2.convert_low_i32x4_u
                (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q4) (local.get $q4))) (f64x2.splat (f64.load (local.get $decode))))
                (v128.const f64x2 65535 65535)) (f64x2.splat (f64.load offset=8 (local.get $decode)))))))
          (if (local.get $refFloat)
            (then
              (local.set $addr (i32.add (local.get $rh) (i32.shl (local.get $t) (i32.const 2))))
              (local.set $b01 (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $addr))))
              (local.set $b23 (f64x2.promote_low_f32x4 (v128.load64_zero offset=8 (local.get $addr)))))
            (else
              (local.set $q4 (v128.load16x4_u (i32.add (local.get $rc) (i32.shl (local.get $t) (i32.const 1)))))
              (local.set $b01 (f64x2.add (f64x2.div (f64x2.mul (f64x2.convert_low_i32x4_u (local.get $q4)) (f64x2.splat (f64.load (local.get $decode))))
                (v128.const f64x2 65535 65535)) (f64x2.splat (f64.load offset=8 (local.get $decode)))))
              (local.set $b23 (f64x2.add (f64x2.div (f64x2.mul (f64x2.convert_low_i32x4_u
                (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q4) (local.get $q4))) (f64x2.splat (f64.load (local.get $decode))))
                (v128.const f64x2 65535 65535)) (f64x2.splat (f64.load offset=8 (local.get $decode)))))))
          (if (v128.any_true (v128.or
                (f64x2.ne (f64x2.add (f64x2.sub (local.get $a01) (local.get $a01)) (f64x2.sub (local.get $b01) (local.get $b01))) (v128.const i64x2 0 0))
                (f64x2.ne (f64x2.add (f64x2.sub (local.get $a23) (local.get $a23)) (f64x2.sub (local.get $b23) (local.get $b23))) (v128.const i64x2 0 0))))
            (then (local.set $skip (i32.const 4)))
            (else
              ;; clampCounts: a lane's compare is -1 where true; above the range only where not below it.
              (if (local.get $genFloat)
                (then
                  (local.set $lo (f64x2.lt (local.get $a01) (local.get $vmin)))
                  (local.set $cLoG (i64x2.sub (local.get $cLoG) (local.get $lo)))
                  (local.set $cHiG (i64x2.sub (local.get $cHiG) (v128.andnot (f64x2.gt (local.get $a01) (local.get $vmax)) (local.get $lo))))
                  (local.set $lo (f64x2.lt (local.get $a23) (local.get $vmin)))
                  (local.set $cLoG (i64x2.sub (local.get $cLoG) (local.get $lo)))
                  (local.set $cHiG (i64x2.sub (local.get $cHiG) (v128.andnot (f64x2.gt (local.get $a23) (local.get $vmax)) (local.get $lo))))))
              (if (local.get $refFloat)
                (then
                  (local.set $lo (f64x2.lt (local.get $b01) (local.get $vmin)))
                  (local.set $cLoR (i64x2.sub (local.get $cLoR) (local.get $lo)))
                  (local.set $cHiR (i64x2.sub (local.get $cHiR) (v128.andnot (f64x2.gt (local.get $b01) (local.get $vmax)) (local.get $lo))))
                  (local.set $lo (f64x2.lt (local.get $b23) (local.get $vmin)))
                  (local.set $cLoR (i64x2.sub (local.get $cLoR) (local.get $lo)))
                  (local.set $cHiR (i64x2.sub (local.get $cHiR) (v128.andnot (f64x2.gt (local.get $b23) (local.get $vmax)) (local.get $lo))))))
              (local.set $addr (i32.add (local.get $gc) (i32.shl (local.get $t) (i32.const 1))))
              (local.set $dq4 (i32x4.sub (v128.load16x4_u (local.get $addr))
                (v128.load16x4_u (i32.add (local.get $rc) (i32.shl (local.get $t) (i32.const 1))))))
              (v128.store (i32.add (local.get $dqS) (i32.shl (local.get $u) (i32.const 2))) (local.get $dq4))
              (local.set $d01 (f64x2.sub (local.get $a01) (local.get $b01)))
              (local.set $d23 (f64x2.sub (local.get $a23) (local.get $b23)))
              (local.set $addr (i32.add (local.get $dmS) (i32.shl (local.get $u) (i32.const 3))))
              (v128.store (local.get $addr) (local.get $d01))
              (v128.store offset=16 (local.get $addr) (local.get $d23))
              ;; The block maps: the four pixels' largest |dq| (a pixel with dq = 0 adds 0), and the first largest
              ;; |dm| of the four (pairs, then the later pair only when larger), each taken only when larger.
              (local.set $dq4 (i32x4.abs (local.get $dq4)))
              (local.set $dq4 (i32x4.max_u (local.get $dq4) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $dq4) (local.get $dq4))))
              (local.set $ad (i32x4.extract_lane 0 (i32x4.max_u (local.get $dq4) (i8x16.shuffle 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 (local.get $dq4) (local.get $dq4)))))
              (local.set $lad (select (local.get $ad) (local.get $lad) (i32.gt_u (local.get $ad) (local.get $lad))))
              (local.set $m01 (f64x2.abs (local.get $d01)))
              (local.set $m23 (f64x2.abs (local.get $d23)))
              (local.set $pa (f64x2.extract_lane 0 (local.get $m01)))
              (local.set $pd (f64x2.extract_lane 0 (local.get $d01)))
              (local.set $x (f64x2.extract_lane 1 (local.get $m01)))
              (local.set $gt (f64.gt (local.get $x) (local.get $pa)))
              (local.set $pa (select (local.get $x) (local.get $pa) (local.get $gt)))
              (local.set $pd (select (f64x2.extract_lane 1 (local.get $d01)) (local.get $pd) (local.get $gt)))
              (local.set $qa (f64x2.extract_lane 0 (local.get $m23)))
              (local.set $qd (f64x2.extract_lane 0 (local.get $d23)))
              (local.set $x (f64x2.extract_lane 1 (local.get $m23)))
              (local.set $gt (f64.gt (local.get $x) (local.get $qa)))
              (local.set $qa (select (local.get $x) (local.get $qa) (local.get $gt)))
              (local.set $qd (select (f64x2.extract_lane 1 (local.get $d23)) (local.get $qd) (local.get $gt)))
              (local.set $gt (f64.gt (local.get $qa) (local.get $pa)))
              (local.set $pa (select (local.get $qa) (local.get $pa) (local.get $gt)))
              (local.set $pd (select (local.get $qd) (local.get $pd) (local.get $gt)))
              (local.set $gt (f64.gt (local.get $pa) (local.get $lam)))
              (local.set $lam (select (local.get $pa) (local.get $lam) (local.get $gt)))
              (local.set $ldm (select (local.get $pd) (local.get $ldm) (local.get $gt)))
              (local.set $st (i32.const 4))))))
      (if (i32.eq (local.get $st) (i32.const 1)) (then
      (local.set $skip (select (i32.sub (local.get $skip) (i32.const 1)) (i32.const 0) (local.get $skip)))
      (local.set $a (if (result f64) (local.get $genFloat)
        (then (f64.promote_f32 (f32.load (i32.add (local.get $gh) (i32.shl (local.get $t) (i32.const 2))))))
        (else (f64.load (i32.add (local.get $table) (i32.shl (i32.load16_u (i32.add (local.get $gc) (i32.shl (local.get $t) (i32.const 1)))) (i32.const 3)))))))
      (local.set $b (if (result f64) (local.get $refFloat)
        (then (f64.promote_f32 (f32.load (i32.add (local.get $rh) (i32.shl (local.get $t) (i32.const 2))))))
        (else (f64.load (i32.add (local.get $table) (i32.shl (i32.load16_u (i32.add (local.get $rc) (i32.shl (local.get $t) (i32.const 1)))) (i32.const 3)))))))
      (if (local.get $genFloat)
        (then
          (if (f64.lt (local.get $a) (local.get $rmin))
            (then (local.set $gLo (f64.add (local.get $gLo) (f64.const 1))))
            (else (if (f64.gt (local.get $a) (local.get $rmax))
              (then (local.set $gHi (f64.add (local.get $gHi) (f64.const 1)))))))))
      (if (local.get $refFloat)
        (then
          (if (f64.lt (local.get $b) (local.get $rmin))
            (then (local.set $rLo (f64.add (local.get $rLo) (f64.const 1))))
            (else (if (f64.gt (local.get $b) (local.get $rmax))
              (then (local.set $rHi (f64.add (local.get $rHi) (f64.const 1)))))))))
      ;; (a - a) + (b - b) is 0 exactly when both are finite (NaN when either is NaN or infinite): one test a pixel.
      (if (f64.ne (f64.add (f64.sub (local.get $a) (local.get $a)) (f64.sub (local.get $b) (local.get $b))) (f64.const 0))
        (then
          (local.set $badA (f64.ne (f64.sub (local.get $a) (local.get $a)) (f64.const 0)))
          (local.set $badB (f64.ne (f64.sub (local.get $b) (local.get $b)) (f64.const 0)))
          (i32.store (local.get $state) (i32.add (i32.load (local.get $state)) (local.get $badA)))
          (i32.store offset=4 (local.get $state) (i32.add (i32.load offset=4 (local.get $state)) (local.get $badB)))
          (i32.store (i32.add (local.get $excl) (i32.shl (i32.load offset=8 (local.get $state)) (i32.const 2))) (local.get $k))
          (i32.store offset=8 (local.get $state) (i32.add (i32.load offset=8 (local.get $state)) (i32.const 1)))
          (local.set $nExcl (f64.add (local.get $nExcl) (f64.const 1)))
          (i32.store (i32.add (local.get $dqS) (i32.shl (local.get $u) (i32.const 2))) (i32.const 0))
          (f64.store (i32.add (local.get $dmS) (i32.shl (local.get $u) (i32.const 3))) (f64.const 0)))
        (else
          (local.set $dq (i32.sub (i32.load16_u (i32.add (local.get $gc) (i32.shl (local.get $t) (i32.const 1))))
                                  (i32.load16_u (i32.add (local.get $rc) (i32.shl (local.get $t) (i32.const 1))))))
          (local.set $dm (f64.sub (local.get $a) (local.get $b)))
          (i32.store (i32.add (local.get $dqS) (i32.shl (local.get $u) (i32.const 2))) (local.get $dq))
          (f64.store (i32.add (local.get $dmS) (i32.shl (local.get $u) (i32.const 3))) (local.get $dm))
          (local.set $am (f64.abs (local.get $dm)))
          (if (i32.or (local.get $dq) (f64.ne (local.get $dm) (f64.const 0)))
            (then
              (local.set $ad (select (i32.sub (i32.const 0) (local.get $dq)) (local.get $dq) (i32.lt_s (local.get $dq) (i32.const 0))))
              ;; The block maps: this row's part of the block kept in locals (no branch a pixel), merged at its end.
              (local.set $lad (select (local.get $ad) (local.get $lad) (i32.gt_u (local.get $ad) (local.get $lad))))
              (local.set $gt (f64.gt (local.get $am) (local.get $lam)))
              (local.set $lam (select (local.get $am) (local.get $lam) (local.get $gt)))
              (local.set $ldm (select (local.get $dm) (local.get $ldm) (local.get $gt)))))))
      ))
      (local.set $u (i32.add (local.get $u) (local.get $st)))
      (local.set $k (i32.add (local.get $k) (local.get $st)))
      (local.set $i (i32.add (local.get $i) (local.get $st)))
      (local.set $ib (i32.add (local.get $ib) (local.get $st)))
      (if (i32.eq (local.get $ib) (local.get $B))
        (then
          (local.set $bi (i32.add (local.get $rowBlock) (local.get $bx)))
          (local.set $addr (i32.add (local.get $block) (i32.shl (local.get $bi) (i32.const 1))))
          (if (i32.gt_u (local.get $lad) (i32.load16_u (local.get $addr))) (then (i32.store16 (local.get $addr) (local.get $lad))))
          (local.set $addr (i32.add (local.get $blockFA) (i32.shl (local.get $bi) (i32.const 3))))
          (if (f64.gt (local.get $lam) (f64.load (local.get $addr)))
            (then
              (f64.store (local.get $addr) (local.get $lam))
              (f32.store (i32.add (local.get $blockF) (i32.shl (local.get $bi) (i32.const 2))) (f32.demote_f64 (local.get $ldm)))))
          (local.set $lad (i32.const 0))
          (local.set $lam (f64.const 0))
          (local.set $ldm (f64.const 0))
          (local.set $ib (i32.const 0)) (local.set $bx (i32.add (local.get $bx) (i32.const 1)))))
      (if (i32.eq (local.get $i) (local.get $W))
        (then
          ;; A last block narrower than B ends with the row.
          (if (local.get $ib)
            (then
              (local.set $bi (i32.add (local.get $rowBlock) (local.get $bx)))
              (local.set $addr (i32.add (local.get $block) (i32.shl (local.get $bi) (i32.const 1))))
              (if (i32.gt_u (local.get $lad) (i32.load16_u (local.get $addr))) (then (i32.store16 (local.get $addr) (local.get $lad))))
              (local.set $addr (i32.add (local.get $blockFA) (i32.shl (local.get $bi) (i32.const 3))))
              (if (f64.gt (local.get $lam) (f64.load (local.get $addr)))
                (then
                  (f64.store (local.get $addr) (local.get $lam))
                  (f32.store (i32.add (local.get $blockF) (i32.shl (local.get $bi) (i32.const 2))) (f32.demote_f64 (local.get $ldm)))))
              (local.set $lad (i32.const 0))
              (local.set $lam (f64.const 0))
              (local.set $ldm (f64.const 0))))
          (local.set $i (i32.const 0))
          (local.set $ib (i32.const 0))
          (local.set $bx (i32.const 0))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (local.set $rowBlock (i32.mul (i32.div_u (local.get $j) (local.get $B)) (local.get $bw)))))
      (br $each)))
    ;; The block the sub-block ends in (the next sub-block goes on with it).
    (if (local.get $ib)
      (then
        (local.set $bi (i32.add (local.get $rowBlock) (local.get $bx)))
        (local.set $addr (i32.add (local.get $block) (i32.shl (local.get $bi) (i32.const 1))))
        (if (i32.gt_u (local.get $lad) (i32.load16_u (local.get $addr))) (then (i32.store16 (local.get $addr) (local.get $lad))))
        (local.set $addr (i32.add (local.get $blockFA) (i32.shl (local.get $bi) (i32.const 3))))
        (if (f64.gt (local.get $lam) (f64.load (local.get $addr)))
          (then
            (f64.store (local.get $addr) (local.get $lam))
            (f32.store (i32.add (local.get $blockF) (i32.shl (local.get $bi) (i32.const 2))) (f32.demote_f64 (local.get $ldm)))))
        (local.set $lad (i32.const 0))
        (local.set $lam (f64.const 0))
        (local.set $ldm (f64.const 0))))
    ;; An excluded pixel's dm is 0 in the scratch, which $tallyExtras counts as equal: taken back here, whichever
    ;; thread tallies the sub-block (the counts are exact integers, so the banks add up in any order).
    (f64.store (local.get $extras) (f64.sub (f64.load (local.get $extras)) (local.get $nExcl)))
    (if (local.get $tally) (then (call $tallyExtras (local.get $dmS) (local.get $n) (local.get $extras) (local.get $edges) (local.get $tolM))))
    ;; The four-pixel steps' clamp counts, lane by lane (-1 a pixel).
    (local.set $gLo (f64.add (local.get $gLo) (f64.convert_i64_s (i64.add (i64x2.extract_lane 0 (local.get $cLoG)) (i64x2.extract_lane 1 (local.get $cLoG))))))
    (local.set $gHi (f64.add (local.get $gHi) (f64.convert_i64_s (i64.add (i64x2.extract_lane 0 (local.get $cHiG)) (i64x2.extract_lane 1 (local.get $cHiG))))))
    (local.set $rLo (f64.add (local.get $rLo) (f64.convert_i64_s (i64.add (i64x2.extract_lane 0 (local.get $cLoR)) (i64x2.extract_lane 1 (local.get $cLoR))))))
    (local.set $rHi (f64.add (local.get $rHi) (f64.convert_i64_s (i64.add (i64x2.extract_lane 0 (local.get $cHiR)) (i64x2.extract_lane 1 (local.get $cHiR))))))
    (f64.store offset=184 (local.get $extras) (f64.add (f64.load offset=184 (local.get $extras)) (local.get $gLo)))
    (f64.store offset=192 (local.get $extras) (f64.add (f64.load offset=192 (local.get $extras)) (local.get $gHi)))
    (f64.store offset=200 (local.get $extras) (f64.add (f64.load offset=200 (local.get $extras)) (local.get $rLo)))
    (f64.store offset=208 (local.get $extras) (f64.add (f64.load offset=208 (local.get $extras)) (local.get $rHi))))

  ;; floatExtras' counts of the n dm (f64) from dmS, a sub-block's scratch that $prepare wrote, added to the bank at
  ;; extras: [0] dm = 0, [1] dm != 0, [2] |dm| > tolM, [3 + e] dm > 0 and [13 + e] dm < 0 in decade e (float-kernel.ts
  ;; gives each thread a bank of its own and adds them at the end). $prepare runs it, or $regions on the helper
  ;; thread while the helper keeps up.
  (func $tallyExtras (param $dmS i32) (param $n i32) (param $extras i32) (param $edges i32) (param $tolM f64)
    (local $u i32) (local $dm f64) (local $am f64) (local $mm f64) (local $e i32) (local $addr i32) (local $bi i32)
    (local $nEq f64) (local $nDiff f64) (local $nBeyond f64)
    (local $e12 v128) (local $e34 v128) (local $e56 v128) (local $e78 v128) (local $e9 f64) (local $mv v128) (local $cnt v128)
    ;; Edges 1..9 in registers: the caller gives them non-decreasing, so the last edge 1000·|dm| exceeds is the
    ;; number of them it exceeds (no loop and no branch a pixel: near fields fall in neighbouring decades at random).
    (local.set $e12 (v128.load offset=8 (local.get $edges)))
    (local.set $e34 (v128.load offset=24 (local.get $edges)))
    (local.set $e56 (v128.load offset=40 (local.get $edges)))
    (local.set $e78 (v128.load offset=56 (local.get $edges)))
    (local.set $e9 (f64.load offset=72 (local.get $edges)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $u) (local.get $n)))
      (local.set $dm (f64.load (i32.add (local.get $dmS) (i32.shl (local.get $u) (i32.const 3)))))
      (local.set $am (f64.abs (local.get $dm)))
      (if (f64.eq (local.get $dm) (f64.const 0))
        (then (local.set $nEq (f64.add (local.get $nEq) (f64.const 1))))
        (else
          (local.set $nDiff (f64.add (local.get $nDiff) (f64.const 1)))
          (local.set $nBeyond (f64.add (local.get $nBeyond) (f64.convert_i32_u (f64.gt (local.get $am) (local.get $tolM)))))
          (local.set $mm (f64.mul (local.get $am) (f64.const 1000)))
          (local.set $mv (f64x2.splat (local.get $mm)))
          (local.set $cnt (i64x2.add
            (i64x2.add (f64x2.gt (local.get $mv) (local.get $e12)) (f64x2.gt (local.get $mv) (local.get $e34)))
            (i64x2.add (f64x2.gt (local.get $mv) (local.get $e56)) (f64x2.gt (local.get $mv) (local.get $e78)))))
          ;; Each lane counts -1 for an edge exceeded.
          (local.set $e (i32.sub (f64.gt (local.get $mm) (local.get $e9))
            (i32.wrap_i64 (i64.add (i64x2.extract_lane 0 (local.get $cnt)) (i64x2.extract_lane 1 (local.get $cnt))))))
          ;; The decade's i32 tally, one bank per pixel parity: a neighbour in the same decade does not wait on
          ;; this store.
          (local.set $addr (i32.add (i32.add (local.get $extras) (i32.mul (i32.and (local.get $u) (i32.const 1)) (i32.const 80)))
            (i32.shl (i32.add (local.get $e) (select (i32.const 10) (i32.const 0) (f64.lt (local.get $dm) (f64.const 0)))) (i32.const 2))))
          (i32.store offset=216 (local.get $addr) (i32.add (i32.load offset=216 (local.get $addr)) (i32.const 1)))))
      (local.set $u (i32.add (local.get $u) (i32.const 1)))
      (br $each)))
    ;; The decade tallies (two banks of 20 i32 from extras + 216) into the f64 counts [3 + e] and [13 + e], emptied.
    (local.set $e (i32.const 0))
    (block $tdone (loop $tally
      (br_if $tdone (i32.eq (local.get $e) (i32.const 20)))
      (local.set $addr (i32.add (local.get $extras) (i32.shl (local.get $e) (i32.const 2))))
      (local.set $bi (i32.add (local.get $extras) (i32.shl (local.get $e) (i32.const 3))))
      (f64.store offset=24 (local.get $bi) (f64.add (f64.load offset=24 (local.get $bi))
        (f64.convert_i32_u (i32.add (i32.load offset=216 (local.get $addr)) (i32.load offset=296 (local.get $addr))))))
      (i32.store offset=216 (local.get $addr) (i32.const 0))
      (i32.store offset=296 (local.get $addr) (i32.const 0))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br $tally)))
    ;; The counts, exact integers in f64, added to the bank's totals.
    (f64.store (local.get $extras) (f64.add (f64.load (local.get $extras)) (local.get $nEq)))
    (f64.store offset=8 (local.get $extras) (f64.add (f64.load offset=8 (local.get $extras)) (local.get $nDiff)))
    (f64.store offset=16 (local.get $extras) (f64.add (f64.load offset=16 (local.get $extras)) (local.get $nBeyond))))

  ;; Pass 2, region q over the sub-block of n pixels starting at pixel k0: the whole map (m = -1) or mask m, whose
  ;; member columns in row j are the two spans [s, e) of 4 i32 at spans + 16(jM + m) (masks.ts maskRowSpans: the
  ;; pixels where maskContainsBounds holds). A pixel with dq or dm != 0 (addCode, then addFloat, of
  ;; RegionAccumulator): for dq != 0 the dense bin (|dq| <= 64) or the wide bin, and the first largest |dq|. Region
  ;; q's wide bins (u32 at dq + 65535) are allocated on its first wide dq (8 pages grown; the pointer at widePtr + 4q);
  ;; a wide dq first counted in region q appends (q, dq) to the events, counted at evc (WideBins' order: the caller
  ;; gives the whole map, which another thread may pass while this one passes the masks, a list of its own). For
  ;; dm != 0 both Neumaier steps at once, lane 0 the sum of dm and lane 1 that of dm² (acc + 56q: sum, sumSq, c, cSq), each
  ;; lane the scalar step's IEEE operations; then the first largest |dm|, its value and its pixel.
  (func $region (export "region") (param $q i32) (param $m i32) (param $M i32) (param $n i32) (param $k0 i32) (param $W i32) (param $spans i32)
    (param $acc i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32) (param $widePtr i32) (param $events i32)
    (param $evc i32) (param $scratch i32) (param $sub i32)
    (local $u i32) (local $k i32) (local $j i32) (local $j1 i32) (local $h i32) (local $s i32) (local $e i32) (local $rowK i32)
    (local $dq i32) (local $ad i32) (local $dm f64) (local $x f64)
    (local $addr i32) (local $p i32) (local $c i32) (local $g i32) (local $ev i32) (local $cmax i32) (local $cat i32)
    (local $f i32) (local $sv v128) (local $cv v128) (local $tv v128) (local $xv v128) (local $mx f64) (local $ms f64) (local $mat f64)
    (local $dqS i32) (local $dmS i32) (local $denseQ i32)
    (local.set $dqS (local.get $scratch))
    (local.set $dmS (i32.add (local.get $scratch) (i32.shl (local.get $sub) (i32.const 2))))
    (local.set $f (i32.add (local.get $acc) (i32.mul (local.get $q) (i32.const 56))))
    (local.set $sv (v128.load (local.get $f)))
    (local.set $cv (v128.load offset=16 (local.get $f)))
    (local.set $mx (f64.load offset=32 (local.get $f)))
    (local.set $ms (f64.load offset=40 (local.get $f)))
    (local.set $mat (f64.load offset=48 (local.get $f)))
    (local.set $cmax (i32.load (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2)))))
    (local.set $cat (i32.load (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2)))))
    (local.set $p (i32.load (i32.add (local.get $widePtr) (i32.shl (local.get $q) (i32.const 2)))))
    (local.set $ev (i32.load (local.get $evc)))
    (local.set $denseQ (i32.add (local.get $dense) (i32.shl (i32.add (i32.mul (local.get $q) (i32.const 129)) (i32.const 64)) (i32.const 3))))
    (local.set $j (i32.div_u (local.get $k0) (local.get $W)))
    (local.set $j1 (i32.div_u (i32.sub (i32.add (local.get $k0) (local.get $n)) (i32.const 1)) (local.get $W)))
    (block $rowsDone (loop $rows
      (br_if $rowsDone (i32.gt_u (local.get $j) (local.get $j1)))
      (local.set $rowK (i32.sub (i32.mul (local.get $j) (local.get $W)) (local.get $k0)))
      (local.set $h (i32.const 0))
      (block $halvesDone (loop $halves
        (br_if $halvesDone (i32.eq (local.get $h) (i32.const 2)))
        (if (i32.lt_s (local.get $m) (i32.const 0))
          (then
            (local.set $s (i32.const 0))
            (local.set $e (select (local.get $W) (i32.const 0) (i32.eqz (local.get $h)))))
          (else
            (local.set $addr (i32.add (local.get $spans)
              (i32.shl (i32.add (i32.shl (i32.add (i32.mul (local.get $j) (local.get $M)) (local.get $m)) (i32.const 1)) (local.get $h)) (i32.const 3))))
            (local.set $s (i32.load (local.get $addr)))
            (local.set $e (i32.load offset=4 (local.get $addr)))))
        ;; The span in sub-block positions, clipped to the sub-block.
        (local.set $s (i32.add (local.get $s) (local.get $rowK)))
        (local.set $e (i32.add (local.get $e) (local.get $rowK)))
        (if (i32.lt_s (local.get $s) (i32.const 0)) (then (local.set $s (i32.const 0))))
        (if (i32.gt_s (local.get $e) (local.get $n)) (then (local.set $e (local.get $n))))
        (local.set $u (local.get $s))
        (local.set $k (i32.add (local.get $k0) (local.get $u)))
        (block $done (loop $each
          (br_if $done (i32.ge_s (local.get $u) (local.get $e)))
          (local.set $dq (i32.load (i32.add (local.get $dqS) (i32.shl (local.get $u) (i32.const 2)))))
          (local.set $dm (f64.load (i32.add (local.get $dmS) (i32.shl (local.get $u) (i32.const 3)))))
          (if (local.get $dq)
            (then
              (local.set $ad (select (i32.sub (i32.const 0) (local.get $dq)) (local.get $dq) (i32.lt_s (local.get $dq) (i32.const 0))))
              (if (i32.le_u (local.get $ad) (i32.const 64))
                (then
                  (local.set $addr (i32.add (local.get $denseQ) (i32.shl (local.get $dq) (i32.const 3))))
                  (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.const 1))))
                (else
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
                      (local.set $addr (i32.add (local.get $events) (i32.shl (local.get $ev) (i32.const 3))))
                      (i32.store (local.get $addr) (local.get $q))
                      (i32.store offset=4 (local.get $addr) (local.get $dq))
                      (local.set $ev (i32.add (local.get $ev) (i32.const 1)))))))
              (if (i32.gt_s (local.get $ad) (local.get $cmax))
                (then (local.set $cmax (local.get $ad)) (local.set $cat (local.get $k))))))
          (if (f64.ne (local.get $dm) (f64.const 0))
            (then
              (local.set $xv (f64x2.replace_lane 1 (f64x2.splat (local.get $dm)) (f64.mul (local.get $dm) (local.get $dm))))
              (local.set $tv (f64x2.add (local.get $sv) (local.get $xv)))
              (local.set $cv (f64x2.add (local.get $cv)
                (v128.bitselect
                  (f64x2.add (f64x2.sub (local.get $sv) (local.get $tv)) (local.get $xv))
                  (f64x2.add (f64x2.sub (local.get $xv) (local.get $tv)) (local.get $sv))
                  (f64x2.ge (f64x2.abs (local.get $sv)) (f64x2.abs (local.get $xv))))))
              (local.set $sv (local.get $tv))
              (local.set $x (f64.abs (local.get $dm)))
              (if (f64.gt (local.get $x) (local.get $mx))
                (then
                  (local.set $mx (local.get $x))
                  (local.set $ms (local.get $dm))
                  (local.set $mat (f64.convert_i32_u (local.get $k)))))))
          (local.set $u (i32.add (local.get $u) (i32.const 1)))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $each)))
        (local.set $h (i32.add (local.get $h) (i32.const 1)))
        (br $halves)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $rows)))
    (v128.store (local.get $f) (local.get $sv))
    (v128.store offset=16 (local.get $f) (local.get $cv))
    (f64.store offset=32 (local.get $f) (local.get $mx))
    (f64.store offset=40 (local.get $f) (local.get $ms))
    (f64.store offset=48 (local.get $f) (local.get $mat))
    (i32.store (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2))) (local.get $cmax))
    (i32.store (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2))) (local.get $cat))
    (i32.store (local.get $evc) (local.get $ev)))

  ;; Pass 3, the rings over the sub-block of n pixels starting at pixel k0 of a W-wide grid (ring r, of nRings, is
  ;; region q = 1 + M + r, found from r² = dx2[i] + dy2[j] and the ring width step): as $region, but a wide dq only
  ;; adds to the ring's exact sums at ringSums + 24r (count, Σdq, Σdq² as i64): a ring states no histogram, so its
  ;; bins are not kept. The current ring's accumulators are in locals, written back when the ring changes
  ;; (neighbours share rings).
  (func $rings (param $n i32) (param $k0 i32) (param $M i32)
    (param $acc i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32) (param $ringSums i32) (param $scratch i32) (param $sub i32)
    (param $W i32) (param $dx2 i32) (param $dy2 i32) (param $step f64) (param $nRings i32)
    (local $u i32) (local $k i32) (local $dq i32) (local $ad i32) (local $dm f64) (local $x f64) (local $addr i32)
    (local $r i32) (local $cur i32) (local $q i32) (local $cmax i32) (local $cat i32)
    (local $f i32) (local $sv v128) (local $cv v128) (local $tv v128) (local $xv v128) (local $mx f64) (local $ms f64) (local $mat f64)
    (local $wc i64) (local $ws i64) (local $wq i64) (local $rs i32)
    (local $dqS i32) (local $dmS i32) (local $denseQ i32)
    (local $i i32) (local $j i32) (local $r2 f64) (local $kf f64) (local $lo2 f64) (local $hi2 f64) (local $dy2j f64)
    (local.set $dqS (local.get $scratch))
    (local.set $dmS (i32.add (local.get $scratch) (i32.shl (local.get $sub) (i32.const 2))))
    (local.set $cur (i32.const -1))
    (local.set $k (local.get $k0))
    (local.set $j (i32.div_u (local.get $k0) (local.get $W)))
    (local.set $i (i32.sub (local.get $k0) (i32.mul (local.get $j) (local.get $W))))
    (local.set $dy2j (f64.load (i32.add (local.get $dy2) (i32.shl (local.get $j) (i32.const 3)))))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $u) (local.get $n)))
      (local.set $dq (i32.load (i32.add (local.get $dqS) (i32.shl (local.get $u) (i32.const 2)))))
      (local.set $dm (f64.load (i32.add (local.get $dmS) (i32.shl (local.get $u) (i32.const 3)))))
      (if (i32.or (local.get $dq) (f64.ne (local.get $dm) (f64.const 0)))
        (then
          (local.set $r2 (f64.add (f64.load (i32.add (local.get $dx2) (i32.shl (local.get $i) (i32.const 3)))) (local.get $dy2j)))
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
              (if (i32.eqz (i32.and (f64.ge (local.get $kf) (f64.const 0)) (f64.lt (local.get $kf) (f64.convert_i32_u (local.get $nRings)))))
                (then (unreachable)))
              (local.set $r (i32.trunc_f64_s (local.get $kf)))
              (local.set $lo2 (f64.mul (f64.mul (local.get $kf) (local.get $step)) (f64.mul (local.get $kf) (local.get $step))))
              (local.set $hi2 (f64.mul (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step)) (f64.mul (f64.add (local.get $kf) (f64.const 1)) (local.get $step))))
              ;; Cached only when the ring found satisfies the edges itself.
              (if (i32.eqz (i32.and (f64.ge (local.get $r2) (local.get $lo2)) (f64.lt (local.get $r2) (local.get $hi2))))
                (then (local.set $lo2 (f64.const 0)) (local.set $hi2 (f64.const 0))))))
          (if (i32.ne (local.get $r) (local.get $cur))
            (then
              (if (i32.ge_s (local.get $cur) (i32.const 0))
                (then
                  (v128.store (local.get $f) (local.get $sv))
                  (v128.store offset=16 (local.get $f) (local.get $cv))
                  (f64.store offset=32 (local.get $f) (local.get $mx))
                  (f64.store offset=40 (local.get $f) (local.get $ms))
                  (f64.store offset=48 (local.get $f) (local.get $mat))
                  (i32.store (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2))) (local.get $cmax))
                  (i32.store (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2))) (local.get $cat))
                  (i64.store (local.get $rs) (local.get $wc))
                  (i64.store offset=8 (local.get $rs) (local.get $ws))
                  (i64.store offset=16 (local.get $rs) (local.get $wq))))
              (local.set $cur (local.get $r))
              (local.set $q (i32.add (i32.add (local.get $M) (i32.const 1)) (local.get $r)))
              (local.set $f (i32.add (local.get $acc) (i32.mul (local.get $q) (i32.const 56))))
              (local.set $sv (v128.load (local.get $f)))
              (local.set $cv (v128.load offset=16 (local.get $f)))
              (local.set $mx (f64.load offset=32 (local.get $f)))
              (local.set $ms (f64.load offset=40 (local.get $f)))
              (local.set $mat (f64.load offset=48 (local.get $f)))
              (local.set $cmax (i32.load (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2)))))
              (local.set $cat (i32.load (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2)))))
              (local.set $rs (i32.add (local.get $ringSums) (i32.mul (local.get $r) (i32.const 24))))
              (local.set $wc (i64.load (local.get $rs)))
              (local.set $ws (i64.load offset=8 (local.get $rs)))
              (local.set $wq (i64.load offset=16 (local.get $rs)))
              (local.set $denseQ (i32.add (local.get $dense) (i32.shl (i32.add (i32.mul (local.get $q) (i32.const 129)) (i32.const 64)) (i32.const 3))))))
          (if (local.get $dq)
            (then
              (local.set $ad (select (i32.sub (i32.const 0) (local.get $dq)) (local.get $dq) (i32.lt_s (local.get $dq) (i32.const 0))))
              (if (i32.le_u (local.get $ad) (i32.const 64))
                (then
                  (local.set $addr (i32.add (local.get $denseQ) (i32.shl (local.get $dq) (i32.const 3))))
                  (f64.store (local.get $addr) (f64.add (f64.load (local.get $addr)) (f64.const 1))))
                (else
                  (local.set $wc (i64.add (local.get $wc) (i64.const 1)))
                  (local.set $ws (i64.add (local.get $ws) (i64.extend_i32_s (local.get $dq))))
                  (local.set $wq (i64.add (local.get $wq) (i64.mul (i64.extend_i32_u (local.get $ad)) (i64.extend_i32_u (local.get $ad)))))))
              (if (i32.gt_s (local.get $ad) (local.get $cmax))
                (then (local.set $cmax (local.get $ad)) (local.set $cat (local.get $k))))))
          (if (f64.ne (local.get $dm) (f64.const 0))
            (then
              (local.set $xv (f64x2.replace_lane 1 (f64x2.splat (local.get $dm)) (f64.mul (local.get $dm) (local.get $dm))))
              (local.set $tv (f64x2.add (local.get $sv) (local.get $xv)))
              (local.set $cv (f64x2.add (local.get $cv)
                (v128.bitselect
                  (f64x2.add (f64x2.sub (local.get $sv) (local.get $tv)) (local.get $xv))
                  (f64x2.add (f64x2.sub (local.get $xv) (local.get $tv)) (local.get $sv))
                  (f64x2.ge (f64x2.abs (local.get $sv)) (f64x2.abs (local.get $xv))))))
              (local.set $sv (local.get $tv))
              (local.set $x (f64.abs (local.get $dm)))
              (if (f64.gt (local.get $x) (local.get $mx))
                (then
                  (local.set $mx (local.get $x))
                  (local.set $ms (local.get $dm))
                  (local.set $mat (f64.convert_i32_u (local.get $k)))))))))
      (local.set $u (i32.add (local.get $u) (i32.const 1)))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.eq (local.get $i) (local.get $W))
        (then
          (local.set $i (i32.const 0))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          ;; Not past the grid's last row (dy2 holds no row beyond it).
          (if (i32.lt_u (local.get $u) (local.get $n))
            (then (local.set $dy2j (f64.load (i32.add (local.get $dy2) (i32.shl (local.get $j) (i32.const 3)))))))))
      (br $each)))
    (if (i32.ge_s (local.get $cur) (i32.const 0))
      (then
        (v128.store (local.get $f) (local.get $sv))
        (v128.store offset=16 (local.get $f) (local.get $cv))
        (f64.store offset=32 (local.get $f) (local.get $mx))
        (f64.store offset=40 (local.get $f) (local.get $ms))
        (f64.store offset=48 (local.get $f) (local.get $mat))
        (i32.store (i32.add (local.get $maxAbs) (i32.shl (local.get $q) (i32.const 2))) (local.get $cmax))
        (i32.store (i32.add (local.get $maxAt) (i32.shl (local.get $q) (i32.const 2))) (local.get $cat))
        (i64.store (local.get $rs) (local.get $wc))
        (i64.store offset=8 (local.get $rs) (local.get $ws))
        (i64.store offset=16 (local.get $rs) (local.get $wq)))))

  ;; Passes 2 and 3 over one sub-block of n pixels from pixel k0 whose scratch $prepare wrote: the whole map (unless
  ;; first is 0: then the caller passes it itself, `region`), each mask, then the rings; first, when $tally is set,
  ;; floatExtras of the sub-block into the bank at $extras. The whole map's wide events go to events0 (counted at
  ;; state[5]), the masks' to events (state[4]), so that each list keeps pixel order whichever thread passes the
  ;; whole map. They read only the scratch and write only the regions' accumulators, wide bins, event lists, ring
  ;; sums and that bank, none of which $prepare touches, so one thread may run them while another prepares the next
  ;; sub-block into another scratch (float-kernel.ts), as long as sub-blocks reach them in order; and with first = 0
  ;; they touch nothing of region 0's (its accumulators, bins, wide bins and events0), which `region` then passes
  ;; on the other thread.
  (func $regions (export "regions") (param $n i32) (param $k0 i32) (param $M i32) (param $W i32) (param $spans i32)
    (param $acc i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32) (param $widePtr i32) (param $events i32)
    (param $ringSums i32) (param $state i32) (param $scratch i32) (param $sub i32)
    (param $dx2 i32) (param $dy2 i32) (param $step f64) (param $rings i32)
    (param $tally i32) (param $extras i32) (param $edges i32) (param $tolM f64) (param $first i32) (param $events0 i32)
    (local $m i32) (local $w i32)
    (if (local.get $tally)
      (then (call $tallyExtras (i32.add (local.get $scratch) (i32.shl (local.get $sub) (i32.const 2))) (local.get $n)
        (local.get $extras) (local.get $edges) (local.get $tolM))))
    (local.set $m (local.get $first))
    (block $mdone (loop $masks
      (br_if $mdone (i32.ge_s (local.get $m) (local.get $M)))
      ;; The whole map's wide events in a list of their own (events0, counted at state[5]), whichever thread passes it.
      (local.set $w (i32.lt_s (local.get $m) (i32.const 0)))
      (call $region (i32.add (local.get $m) (i32.const 1)) (local.get $m) (local.get $M) (local.get $n) (local.get $k0) (local.get $W) (local.get $spans)
        (local.get $acc) (local.get $dense) (local.get $maxAbs) (local.get $maxAt) (local.get $widePtr)
        (select (local.get $events0) (local.get $events) (local.get $w))
        (i32.add (local.get $state) (select (i32.const 20) (i32.const 16) (local.get $w))) (local.get $scratch) (local.get $sub))
      (local.set $m (i32.add (local.get $m) (i32.const 1)))
      (br $masks)))
    (call $rings (local.get $n) (local.get $k0) (local.get $M)
      (local.get $acc) (local.get $dense) (local.get $maxAbs) (local.get $maxAt) (local.get $ringSums) (local.get $scratch) (local.get $sub)
      (local.get $W) (local.get $dx2) (local.get $dy2) (local.get $step) (local.get $rings)))

  ;; full(...): addDifference of compare.ts for pixels [base, base + count) — as scan, and besides: a side whose flag
  ;; (genFloat, refFloat) is 0 holds codes, its metres table[code] (f64), the decode table of the range (span = max -
  ;; min, then min, at decode: four pixels at once decode them directly); region 1 + M + ringIndex(r², step) of
  ;; `rings`; the float block maps keep the first largest |dm| (blockFA, f64) and its dm (blockF, f32); wide dq are
  ;; tallied here ($region, $rings). state: [0], [1], [2] as scan's, [4] the masks' wide events listed at events,
  ;; [5] the whole map's at events0.
  ;; And floatExtras of compare.ts, as f64 counts at extras: [0] dm = 0, [1] dm != 0, [2] |dm| > tolM, [3 + e] dm > 0
  ;; and [13 + e] dm < 0 in decade e, the last of the 10 edges (mm) that 1000·|dm| exceeds (e = 0 when none does);
  ;; clampCounts: [23] heights < rmin and [24] > rmax on a float generated side, [25] and [26] on a float reference.
  ;; From extras + 216, two banks of 20 i32 decade tallies, which $tallyExtras adds into [3 + e] and [13 + e], emptied.
  (func (export "full")
    (param $gh i32) (param $rh i32) (param $gc i32) (param $rc i32) (param $count i32) (param $base i32)
    (param $genFloat i32) (param $refFloat i32) (param $table i32)
    (param $W i32) (param $B i32) (param $bw i32) (param $block i32) (param $blockF i32) (param $blockFA i32)
    (param $dx i32) (param $dx2 i32) (param $dy i32) (param $dy2 i32)
    (param $maskLo i32) (param $maskHi i32) (param $maskHalf i32) (param $maskStrict i32) (param $M i32)
    (param $step f64) (param $rings i32)
    (param $acc i32) (param $dense i32) (param $maxAbs i32) (param $maxAt i32) (param $widePtr i32) (param $events i32)
    (param $ringSums i32) (param $state i32) (param $excl i32) (param $edges i32) (param $tolM f64) (param $extras i32)
    (param $rmin f64) (param $rmax f64) (param $scratch i32) (param $sub i32) (param $spans i32)
    (param $decode i32) (param $events0 i32)
    (local $t0 i32) (local $n i32) (local $k0 i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $t0) (local.get $count)))
      (local.set $n (i32.sub (local.get $count) (local.get $t0)))
      (if (i32.gt_u (local.get $n) (local.get $sub)) (then (local.set $n (local.get $sub))))
      (local.set $k0 (i32.add (local.get $base) (local.get $t0)))
      (call $prepare (local.get $gh) (local.get $rh) (local.get $gc) (local.get $rc) (local.get $t0) (local.get $n) (local.get $base)
        (local.get $genFloat) (local.get $refFloat) (local.get $table)
        (local.get $W) (local.get $B) (local.get $bw) (local.get $block) (local.get $blockF) (local.get $blockFA)
        (local.get $state) (local.get $excl) (local.get $edges) (local.get $tolM) (local.get $extras)
        (local.get $rmin) (local.get $rmax) (local.get $scratch) (local.get $sub) (i32.const 1) (local.get $decode))
      (call $regions (local.get $n) (local.get $k0) (local.get $M) (local.get $W) (local.get $spans)
        (local.get $acc) (local.get $dense) (local.get $maxAbs) (local.get $maxAt) (local.get $widePtr) (local.get $events)
        (local.get $ringSums) (local.get $state) (local.get $scratch) (local.get $sub)
        (local.get $dx2) (local.get $dy2) (local.get $step) (local.get $rings)
        (i32.const 0) (local.get $extras) (local.get $edges) (local.get $tolM) (i32.const -1) (local.get $events0))
      (local.set $t0 (i32.add (local.get $t0) (local.get $n)))
      (br $each))))
)
