;; heightbench triangle raster kernel, f32 mode, WebAssembly SIMD.
;; The rasterizer (src/cpu/raster.ts) sets each triangle up in JavaScript (snapped vertices, exact integer edge
;; functions, top-left flags, float32 1/A and heights, bounds) and bins the triangles by band of 2^{{const.bandShift}}
;; rows; this kernel finds each row's covered span exactly as rasterRows does (firstInside / lastInside on the
;; integer edge values, float64 throughout, every value an exact integer below 2⁵³) and evaluates the span exactly as
;; spanF32 does: λk = f32(Ek(t)·invArea) with Ek(t) = Ek0 + Sk·t, then h = ((λ0·h0 + λ1·h1) + λ2·h2) and target += h,
;; every step an f32 multiply or add (bit-identical to the Math.fround emulation).
;; Triangle record: the 'triangle' block of src/core/wasm/layouts.ts ({{triangle.bytes}} bytes of float64), offsets
;; substituted by scripts/build-wasm.mjs.
(module
  (import "env" "memory" (memory 1))
  (global (export "layoutHash") i32 (i32.const {{layoutHash}}))

  ;; Whether e + s·i passes an edge test (> 0, or ≥ 0 for an owned edge).
  (func $passes (param $e f64) (param $s f64) (param $i f64) (param $strict i32) (result i32)
    (local $v f64)
    (local.set $v (f64.add (local.get $e) (f64.mul (local.get $s) (local.get $i))))
    (if (result i32) (local.get $strict)
      (then (f64.gt (local.get $v) (f64.const 0)))
      (else (f64.ge (local.get $v) (f64.const 0)))))

  ;; First integer i with e + s·i passing, for s > 0.
  (func $firstInside (param $e f64) (param $s f64) (param $strict i32) (result f64)
    (local $i f64)
    (local.set $i (f64.floor (f64.div (f64.neg (local.get $e)) (local.get $s))))
    (block $d1 (loop $l1
      (br_if $d1 (i32.eqz (call $passes (local.get $e) (local.get $s) (f64.sub (local.get $i) (f64.const 1)) (local.get $strict))))
      (local.set $i (f64.sub (local.get $i) (f64.const 1)))
      (br $l1)))
    (block $d2 (loop $l2
      (br_if $d2 (call $passes (local.get $e) (local.get $s) (local.get $i) (local.get $strict)))
      (local.set $i (f64.add (local.get $i) (f64.const 1)))
      (br $l2)))
    (local.get $i))

  ;; Last integer i with e + s·i passing, for s < 0.
  (func $lastInside (param $e f64) (param $s f64) (param $strict i32) (result f64)
    (local $i f64)
    (local.set $i (f64.floor (f64.div (f64.neg (local.get $e)) (local.get $s))))
    (block $d1 (loop $l1
      (br_if $d1 (call $passes (local.get $e) (local.get $s) (local.get $i) (local.get $strict)))
      (local.set $i (f64.sub (local.get $i) (f64.const 1)))
      (br $l1)))
    (block $d2 (loop $l2
      (br_if $d2 (i32.eqz (call $passes (local.get $e) (local.get $s) (f64.add (local.get $i) (f64.const 1)) (local.get $strict))))
      (local.set $i (f64.add (local.get $i) (f64.const 1)))
      (br $l2)))
    (local.get $i))

  ;; Adds pixels p … p + 4·(len − 1) (bytes) with edge values e_k + s_k·t, t = 0 … len − 1.
  (func $span (param $p i32) (param $len i32) (param $e0 f64) (param $s0 f64) (param $e1 f64) (param $s1 f64)
    (param $e2 f64) (param $s2 f64) (param $inv f64) (param $h0 f32) (param $h1 f32) (param $h2 f32)
    (local $i i32) (local $t f64)
    (local $E0 v128) (local $S0 v128) (local $E1 v128) (local $S1 v128) (local $E2 v128) (local $S2 v128) (local $IV v128)
    (local $H0 v128) (local $H1 v128) (local $H2 v128) (local $tA v128) (local $tB v128)
    (local $l0 v128) (local $l1 v128) (local $l2 v128)
    (local.set $E0 (f64x2.splat (local.get $e0)))
    (local.set $S0 (f64x2.splat (local.get $s0)))
    (local.set $E1 (f64x2.splat (local.get $e1)))
    (local.set $S1 (f64x2.splat (local.get $s1)))
    (local.set $E2 (f64x2.splat (local.get $e2)))
    (local.set $S2 (f64x2.splat (local.get $s2)))
    (local.set $IV (f64x2.splat (local.get $inv)))
    (local.set $H0 (f32x4.splat (local.get $h0)))
    (local.set $H1 (f32x4.splat (local.get $h1)))
    (local.set $H2 (f32x4.splat (local.get $h2)))
    (local.set $tA (v128.const f64x2 0 1))
    ;; four pixels at a time
    (block $vd (loop $vec
      (br_if $vd (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $len)))
      (local.set $tB (f64x2.add (local.get $tA) (v128.const f64x2 2 2)))
      (local.set $l0 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (f64x2.mul (f64x2.add (local.get $E0) (f64x2.mul (local.get $S0) (local.get $tA))) (local.get $IV)))
        (f32x4.demote_f64x2_zero (f64x2.mul (f64x2.add (local.get $E0) (f64x2.mul (local.get $S0) (local.get $tB))) (local.get $IV)))))
      (local.set $l1 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (f64x2.mul (f64x2.add (local.get $E1) (f64x2.mul (local.get $S1) (local.get $tA))) (local.get $IV)))
        (f32x4.demote_f64x2_zero (f64x2.mul (f64x2.add (local.get $E1) (f64x2.mul (local.get $S1) (local.get $tB))) (local.get $IV)))))
      (local.set $l2 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
        (f32x4.demote_f64x2_zero (f64x2.mul (f64x2.add (local.get $E2) (f64x2.mul (local.get $S2) (local.get $tA))) (local.get $IV)))
        (f32x4.demote_f64x2_zero (f64x2.mul (f64x2.add (local.get $E2) (f64x2.mul (local.get $S2) (local.get $tB))) (local.get $IV)))))
      (v128.store (local.get $p)
        (f32x4.add (v128.load (local.get $p))
          (f32x4.add
            (f32x4.add (f32x4.mul (local.get $l0) (local.get $H0)) (f32x4.mul (local.get $l1) (local.get $H1)))
            (f32x4.mul (local.get $l2) (local.get $H2)))))
      (local.set $tA (f64x2.add (local.get $tA) (v128.const f64x2 4 4)))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $vec)))
    ;; the remaining pixels one at a time
    (block $sd (loop $sc
      (br_if $sd (i32.ge_s (local.get $i) (local.get $len)))
      (local.set $t (f64.convert_i32_s (local.get $i)))
      (f32.store (local.get $p)
        (f32.add (f32.load (local.get $p))
          (f32.add
            (f32.add
              (f32.mul (f32.demote_f64 (f64.mul (f64.add (local.get $e0) (f64.mul (local.get $s0) (local.get $t))) (local.get $inv))) (local.get $h0))
              (f32.mul (f32.demote_f64 (f64.mul (f64.add (local.get $e1) (f64.mul (local.get $s1) (local.get $t))) (local.get $inv))) (local.get $h1)))
            (f32.mul (f32.demote_f64 (f64.mul (f64.add (local.get $e2) (f64.mul (local.get $s2) (local.get $t))) (local.get $inv))) (local.get $h2)))))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $sc))))

  ;; The spans of rows ja … jb of the triangle recorded at $r (rasterRows' steps); returns the pixels covered.
  (func $rows (param $r i32) (param $ja i32) (param $jb i32) (param $tgt i32) (param $n i32) (param $C f64) (result i32)
    (local $j i32) (local $pixels i32) (local $py f64) (local $lo f64) (local $hi f64)
    (local $c0 f64) (local $c1 f64) (local $c2 f64)
    (local $s0 f64) (local $s1 f64) (local $s2 f64)
    (local $st0 i32) (local $st1 i32) (local $st2 i32)
    (local.set $s0 (f64.load offset={{triangle.s[0]}} (local.get $r)))
    (local.set $s1 (f64.load offset={{triangle.s[1]}} (local.get $r)))
    (local.set $s2 (f64.load offset={{triangle.s[2]}} (local.get $r)))
    (local.set $st0 (f64.eq (f64.load offset={{triangle.strict[0]}} (local.get $r)) (f64.const 1)))
    (local.set $st1 (f64.eq (f64.load offset={{triangle.strict[1]}} (local.get $r)) (f64.const 1)))
    (local.set $st2 (f64.eq (f64.load offset={{triangle.strict[2]}} (local.get $r)) (f64.const 1)))
    (local.set $j (local.get $ja))
    (block $done (loop $row
      (br_if $done (i32.gt_s (local.get $j) (local.get $jb)))
      (block $next
        (local.set $py (f64.add (f64.mul (f64.convert_i32_s (local.get $j)) (f64.const 256)) (local.get $C)))
        ;; c_k = (bx − ax)·(py − ay) + (s_k / 256)·(C − ax)
        (local.set $c0 (f64.add
          (f64.mul (f64.sub (f64.load offset={{triangle.edges[2]}} (local.get $r)) (f64.load offset={{triangle.edges[0]}} (local.get $r)))
                   (f64.sub (local.get $py) (f64.load offset={{triangle.edges[1]}} (local.get $r))))
          (f64.mul (f64.div (local.get $s0) (f64.const 256)) (f64.sub (local.get $C) (f64.load offset={{triangle.edges[0]}} (local.get $r))))))
        (local.set $c1 (f64.add
          (f64.mul (f64.sub (f64.load offset={{triangle.edges[6]}} (local.get $r)) (f64.load offset={{triangle.edges[4]}} (local.get $r)))
                   (f64.sub (local.get $py) (f64.load offset={{triangle.edges[5]}} (local.get $r))))
          (f64.mul (f64.div (local.get $s1) (f64.const 256)) (f64.sub (local.get $C) (f64.load offset={{triangle.edges[4]}} (local.get $r))))))
        (local.set $c2 (f64.add
          (f64.mul (f64.sub (f64.load offset={{triangle.edges[10]}} (local.get $r)) (f64.load offset={{triangle.edges[8]}} (local.get $r)))
                   (f64.sub (local.get $py) (f64.load offset={{triangle.edges[9]}} (local.get $r))))
          (f64.mul (f64.div (local.get $s2) (f64.const 256)) (f64.sub (local.get $C) (f64.load offset={{triangle.edges[8]}} (local.get $r))))))
        (local.set $lo (f64.load offset={{triangle.i0}} (local.get $r)))
        (local.set $hi (f64.load offset={{triangle.i1}} (local.get $r)))
        (if (f64.gt (local.get $s0) (f64.const 0))
          (then (local.set $lo (f64.max (local.get $lo) (call $firstInside (local.get $c0) (local.get $s0) (local.get $st0)))))
          (else (if (f64.lt (local.get $s0) (f64.const 0))
            (then (local.set $hi (f64.min (local.get $hi) (call $lastInside (local.get $c0) (local.get $s0) (local.get $st0)))))
            (else (br_if $next (i32.eqz (call $passes (local.get $c0) (f64.const 0) (f64.const 0) (local.get $st0))))))))
        (if (f64.gt (local.get $s1) (f64.const 0))
          (then (local.set $lo (f64.max (local.get $lo) (call $firstInside (local.get $c1) (local.get $s1) (local.get $st1)))))
          (else (if (f64.lt (local.get $s1) (f64.const 0))
            (then (local.set $hi (f64.min (local.get $hi) (call $lastInside (local.get $c1) (local.get $s1) (local.get $st1)))))
            (else (br_if $next (i32.eqz (call $passes (local.get $c1) (f64.const 0) (f64.const 0) (local.get $st1))))))))
        (if (f64.gt (local.get $s2) (f64.const 0))
          (then (local.set $lo (f64.max (local.get $lo) (call $firstInside (local.get $c2) (local.get $s2) (local.get $st2)))))
          (else (if (f64.lt (local.get $s2) (f64.const 0))
            (then (local.set $hi (f64.min (local.get $hi) (call $lastInside (local.get $c2) (local.get $s2) (local.get $st2)))))
            (else (br_if $next (i32.eqz (call $passes (local.get $c2) (f64.const 0) (f64.const 0) (local.get $st2))))))))
        (br_if $next (f64.lt (local.get $hi) (local.get $lo)))
        (call $span
          (i32.add (local.get $tgt)
            (i32.shl (i32.add (i32.mul (local.get $j) (local.get $n)) (i32.trunc_f64_s (local.get $lo))) (i32.const 2)))
          (i32.trunc_f64_s (f64.add (f64.sub (local.get $hi) (local.get $lo)) (f64.const 1)))
          (f64.add (local.get $c0) (f64.mul (local.get $s0) (local.get $lo))) (local.get $s0)
          (f64.add (local.get $c1) (f64.mul (local.get $s1) (local.get $lo))) (local.get $s1)
          (f64.add (local.get $c2) (f64.mul (local.get $s2) (local.get $lo))) (local.get $s2)
          (f64.load offset={{triangle.invArea}} (local.get $r))
          (f32.demote_f64 (f64.load offset={{triangle.h[0]}} (local.get $r)))
          (f32.demote_f64 (f64.load offset={{triangle.h[1]}} (local.get $r)))
          (f32.demote_f64 (f64.load offset={{triangle.h[2]}} (local.get $r))))
        (local.set $pixels (i32.add (local.get $pixels)
          (i32.trunc_f64_s (f64.add (f64.sub (local.get $hi) (local.get $lo)) (f64.const 1))))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $row)))
    (local.get $pixels))

  ;; Bands b0 … b1 − 1 of 2^{{const.bandShift}} rows of an n × n float32 target at byte $tgt: in each band, the
  ;; triangles binned to it (i32 record indices at $binned, band b's from $start[b] to $start[b + 1] − 1, in draw
  ;; order), each over its rows inside the band. Every pixel lies in one band, so a band run whole by one thread
  ;; keeps each pixel's draw order whatever the split. Returns the pixels covered.
  (func (export "bands") (param $rec i32) (param $binned i32) (param $start i32) (param $b0 i32) (param $b1 i32)
    (param $tgt i32) (param $n i32) (param $C f64) (result i32)
    (local $b i32) (local $q i32) (local $qEnd i32) (local $r i32) (local $top i32) (local $bottom i32)
    (local $ja i32) (local $jb i32) (local $pixels i32)
    (local.set $b (local.get $b0))
    (block $done (loop $band
      (br_if $done (i32.ge_s (local.get $b) (local.get $b1)))
      (local.set $top (i32.shl (local.get $b) (i32.const {{const.bandShift}})))
      (local.set $bottom (i32.sub (i32.add (local.get $top) (i32.shl (i32.const 1) (i32.const {{const.bandShift}}))) (i32.const 1)))
      (if (i32.ge_s (local.get $bottom) (local.get $n)) (then (local.set $bottom (i32.sub (local.get $n) (i32.const 1)))))
      (local.set $q (i32.load (i32.add (local.get $start) (i32.shl (local.get $b) (i32.const 2)))))
      (local.set $qEnd (i32.load offset=4 (i32.add (local.get $start) (i32.shl (local.get $b) (i32.const 2)))))
      (block $tdone (loop $tri
        (br_if $tdone (i32.ge_s (local.get $q) (local.get $qEnd)))
        (local.set $r (i32.add (local.get $rec)
          (i32.mul (i32.load (i32.add (local.get $binned) (i32.shl (local.get $q) (i32.const 2)))) (i32.const {{triangle.bytes}}))))
        (local.set $ja (i32.trunc_f64_s (f64.load offset={{triangle.j0}} (local.get $r))))
        (if (i32.lt_s (local.get $ja) (local.get $top)) (then (local.set $ja (local.get $top))))
        (local.set $jb (i32.trunc_f64_s (f64.load offset={{triangle.j1}} (local.get $r))))
        (if (i32.gt_s (local.get $jb) (local.get $bottom)) (then (local.set $jb (local.get $bottom))))
        (local.set $pixels (i32.add (local.get $pixels)
          (call $rows (local.get $r) (local.get $ja) (local.get $jb) (local.get $tgt) (local.get $n) (local.get $C))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $tri)))
      (local.set $b (i32.add (local.get $b) (i32.const 1)))
      (br $band)))
    (local.get $pixels))
)
