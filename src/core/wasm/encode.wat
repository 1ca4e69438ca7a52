;; heightbench R16 encoding kernel, WebAssembly SIMD (f32x4 → u16x8).
;; Per height h (float32): u = (h − fmin)·fscale in float32, code = min(trunc_sat_u(u·maxCode + 0.5), maxCode), each step
;; an f32 operation — the Direct3D FLOAT→UNORM16 rule of src/core/encoding.ts (round half up; u ≤ 0 and NaN → 0,
;; u ≥ 1 → maxCode), bit-identical to encodeFieldR16 (tested). $rounding = 1 rounds ties to even instead (f32x4.nearest;
;; the conventions' encoding.rounding 'half-even', an ablation). Counts u < 0, u > 1 and NaN into three i32 at $counts.
;; maxCode ({{const.maxCode}}) is substituted from the conventions declaration by scripts/build-wasm.mjs.
(module
  (import "env" "memory" (memory 1))
  (global (export "layoutHash") i32 (i32.const {{layoutHash}}))

  (func (export "encode") (param $src i32) (param $dst i32) (param $count i32) (param $fmin f32) (param $fscale f32) (param $counts i32) (param $rounding i32)
    (local $end i32) (local $mn v128) (local $sc v128) (local $q v128) (local $half v128) (local $zero v128) (local $one v128)
    (local $top v128) (local $h0 v128) (local $h1 v128) (local $u0 v128) (local $u1 v128)
    (local $low v128) (local $high v128) (local $nan v128) (local $a0 v128) (local $a1 v128)
    (local.set $mn (f32x4.splat (local.get $fmin)))
    (local.set $sc (f32x4.splat (local.get $fscale)))
    (local.set $q (f32x4.splat (f32.const {{const.maxCode}})))
    (local.set $half (f32x4.splat (f32.const 0.5)))
    (local.set $one (f32x4.splat (f32.const 1)))
    (local.set $top (i32x4.splat (i32.const {{const.maxCode}})))
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $count) (i32.const 2))))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
      (local.set $h0 (v128.load (local.get $src)))
      (local.set $h1 (v128.load offset=16 (local.get $src)))
      (local.set $u0 (f32x4.mul (f32x4.sub (local.get $h0) (local.get $mn)) (local.get $sc)))
      (local.set $u1 (f32x4.mul (f32x4.sub (local.get $h1) (local.get $mn)) (local.get $sc)))
      ;; counters: a true lane is −1, so subtracting the mask adds 1
      (local.set $low (i32x4.sub (local.get $low) (f32x4.lt (local.get $u0) (local.get $zero))))
      (local.set $low (i32x4.sub (local.get $low) (f32x4.lt (local.get $u1) (local.get $zero))))
      (local.set $high (i32x4.sub (local.get $high) (f32x4.gt (local.get $u0) (local.get $one))))
      (local.set $high (i32x4.sub (local.get $high) (f32x4.gt (local.get $u1) (local.get $one))))
      (local.set $nan (i32x4.sub (local.get $nan) (f32x4.ne (local.get $h0) (local.get $h0))))
      (local.set $nan (i32x4.sub (local.get $nan) (f32x4.ne (local.get $h1) (local.get $h1))))
      (local.set $a0 (f32x4.mul (local.get $u0) (local.get $q)))
      (local.set $a1 (f32x4.mul (local.get $u1) (local.get $q)))
      (if (local.get $rounding)
        (then
          (local.set $a0 (f32x4.nearest (local.get $a0)))
          (local.set $a1 (f32x4.nearest (local.get $a1))))
        (else
          (local.set $a0 (f32x4.add (local.get $a0) (local.get $half)))
          (local.set $a1 (f32x4.add (local.get $a1) (local.get $half)))))
      (v128.store (local.get $dst)
        (i16x8.narrow_i32x4_u
          (i32x4.min_u (i32x4.trunc_sat_f32x4_u (local.get $a0)) (local.get $top))
          (i32x4.min_u (i32x4.trunc_sat_f32x4_u (local.get $a1)) (local.get $top))))
      (local.set $src (i32.add (local.get $src) (i32.const 32)))
      (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
      (br $l)))
    (i32.store (local.get $counts)
      (i32.add (i32.add (i32x4.extract_lane 0 (local.get $low)) (i32x4.extract_lane 1 (local.get $low)))
               (i32.add (i32x4.extract_lane 2 (local.get $low)) (i32x4.extract_lane 3 (local.get $low)))))
    (i32.store offset=4 (local.get $counts)
      (i32.add (i32.add (i32x4.extract_lane 0 (local.get $high)) (i32x4.extract_lane 1 (local.get $high)))
               (i32.add (i32x4.extract_lane 2 (local.get $high)) (i32x4.extract_lane 3 (local.get $high)))))
    (i32.store offset=8 (local.get $counts)
      (i32.add (i32.add (i32x4.extract_lane 0 (local.get $nan)) (i32x4.extract_lane 1 (local.get $nan)))
               (i32.add (i32x4.extract_lane 2 (local.get $nan)) (i32x4.extract_lane 3 (local.get $nan))))))
)
