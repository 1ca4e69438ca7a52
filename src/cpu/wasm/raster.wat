;; heightbench triangle-span kernel, f32 mode, WebAssembly SIMD.
;; The JavaScript rasterizer (src/cpu/raster.ts) finds each covered span with exact integer edge functions and
;; queues it here; this kernel evaluates the span exactly as spanF32 does: λk = f32(Ek(t)·invArea) with Ek(t) =
;; Ek0 + Sk·t an exact integer in float64, then h = ((λ0·h0 + λ1·h1) + λ2·h2) and target += h, every step an f32
;; multiply or add (bit-identical to the Math.fround emulation).
;; Span record: the 'span' block of src/core/wasm/layouts.ts ({{span.bytes}} bytes: dst index, length, E0, S0, E1, S1, E2,
;; S2, invArea, h0, h1, h2 as float64, h as float32 values); offsets substituted by scripts/build-wasm.mjs.
(module
  (import "env" "memory" (memory 1))
  (global (export "layoutHash") i32 (i32.const {{layoutHash}}))

  ;; $parity −1: every span; 0 or 1: only the spans whose row (dst / $n) lies in a group of ROW_GROUP rows of that
  ;; parity (the two threads of src/cpu/wasm/raster-kernel.ts each take one: a pixel's spans stay on one thread, in order).
  (func (export "spans") (param $rec i32) (param $count i32) (param $tgt i32) (param $n i32) (param $parity i32)
    (local $end i32) (local $p i32) (local $len i32) (local $i i32)
    (local $e0 f64) (local $s0 f64) (local $e1 f64) (local $s1 f64) (local $e2 f64) (local $s2 f64) (local $inv f64)
    (local $h0 f32) (local $h1 f32) (local $h2 f32) (local $t f64)
    (local $E0 v128) (local $S0 v128) (local $E1 v128) (local $S1 v128) (local $E2 v128) (local $S2 v128) (local $IV v128)
    (local $H0 v128) (local $H1 v128) (local $H2 v128) (local $tA v128) (local $tB v128)
    (local $l0 v128) (local $l1 v128) (local $l2 v128)
    (local.set $end (i32.add (local.get $rec) (i32.mul (local.get $count) (i32.const {{span.bytes}}))))
    (block $done (loop $recs
      (br_if $done (i32.ge_u (local.get $rec) (local.get $end)))
      (if (i32.ge_s (local.get $parity) (i32.const 0))
        (then
          (if (i32.ne (local.get $parity)
                (i32.and (i32.shr_u (i32.div_u (i32.trunc_f64_u (f64.load offset={{span.dst}} (local.get $rec))) (local.get $n)) (i32.const {{const.rowGroupShift}})) (i32.const 1)))
            (then
              (local.set $rec (i32.add (local.get $rec) (i32.const {{span.bytes}})))
              (br $recs)))))
      (local.set $p (i32.add (local.get $tgt) (i32.shl (i32.trunc_f64_u (f64.load offset={{span.dst}} (local.get $rec))) (i32.const 2))))
      (local.set $len (i32.trunc_f64_u (f64.load offset={{span.len}} (local.get $rec))))
      (local.set $e0 (f64.load offset={{span.e0}} (local.get $rec)))
      (local.set $s0 (f64.load offset={{span.s0}} (local.get $rec)))
      (local.set $e1 (f64.load offset={{span.e1}} (local.get $rec)))
      (local.set $s1 (f64.load offset={{span.s1}} (local.get $rec)))
      (local.set $e2 (f64.load offset={{span.e2}} (local.get $rec)))
      (local.set $s2 (f64.load offset={{span.s2}} (local.get $rec)))
      (local.set $inv (f64.load offset={{span.invArea}} (local.get $rec)))
      (local.set $h0 (f32.demote_f64 (f64.load offset={{span.h0}} (local.get $rec))))
      (local.set $h1 (f32.demote_f64 (f64.load offset={{span.h1}} (local.get $rec))))
      (local.set $h2 (f32.demote_f64 (f64.load offset={{span.h2}} (local.get $rec))))
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
      (local.set $i (i32.const 0))
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
        (br $sc)))
      (local.set $rec (i32.add (local.get $rec) (i32.const {{span.bytes}})))
      (br $recs))))
)
