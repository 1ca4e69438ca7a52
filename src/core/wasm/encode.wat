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

;; The PNG16 writer's Up filter (filter type 2) on codes already in this memory, for rows [j0, j1) of a width-wide
;; field at $codes (u16, host order, row j at codes + 2·width·j): row j's scanline goes to $out + j·(1 + 2·width), its
;; filter byte 2, then each sample's high and low byte minus those of the sample above (zeros above row 0), modulo
;; 256 — byte for byte what upFilteredRows in src/io/png16.ts writes. Rows are independent, so any split gives the
;; same scanlines.
  (func (export "up") (param $codes i32) (param $out i32) (param $width i32) (param $j0 i32) (param $j1 i32)
    (local $j i32) (local $cur i32) (local $above i32) (local $o i32) (local $i i32) (local $vec i32)
    (local $rowBytes i32) (local $q i32) (local $u i32) (local $a v128)
    (local.set $rowBytes (i32.shl (local.get $width) (i32.const 1)))
    (local.set $vec (i32.and (local.get $width) (i32.const -8)))
    (local.set $j (local.get $j0))
    (block $rowsDone (loop $rowLoop
      (br_if $rowsDone (i32.ge_u (local.get $j) (local.get $j1)))
      (local.set $cur (i32.add (local.get $codes) (i32.mul (local.get $j) (local.get $rowBytes))))
      (local.set $above (i32.sub (local.get $cur) (local.get $rowBytes)))
      (local.set $o (i32.add (local.get $out) (i32.mul (local.get $j) (i32.add (local.get $rowBytes) (i32.const 1)))))
      (i32.store8 (local.get $o) (i32.const 2))
      (local.set $o (i32.add (local.get $o) (i32.const 1)))
      ;; Eight samples a step: each sample's bytes swapped (big-endian), then subtracted byte by byte.
      (local.set $i (i32.const 0))
      (block $vecDone (loop $vecLoop
        (br_if $vecDone (i32.ge_u (local.get $i) (local.get $vec)))
        (local.set $a
          (if (result v128) (local.get $j)
            (then (v128.load (i32.add (local.get $above) (i32.shl (local.get $i) (i32.const 1)))))
            (else (v128.const i32x4 0 0 0 0))))
        (v128.store
          (i32.add (local.get $o) (i32.shl (local.get $i) (i32.const 1)))
          (i8x16.sub
            (i8x16.shuffle 1 0 3 2 5 4 7 6 9 8 11 10 13 12 15 14
              (v128.load (i32.add (local.get $cur) (i32.shl (local.get $i) (i32.const 1)))) (v128.const i32x4 0 0 0 0))
            (i8x16.shuffle 1 0 3 2 5 4 7 6 9 8 11 10 13 12 15 14 (local.get $a) (v128.const i32x4 0 0 0 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $vecLoop)))
      ;; The last width mod 8 samples one at a time.
      (block $tailDone (loop $tailLoop
        (br_if $tailDone (i32.ge_u (local.get $i) (local.get $width)))
        (local.set $q (i32.load16_u (i32.add (local.get $cur) (i32.shl (local.get $i) (i32.const 1)))))
        (local.set $u
          (if (result i32) (local.get $j)
            (then (i32.load16_u (i32.add (local.get $above) (i32.shl (local.get $i) (i32.const 1)))))
            (else (i32.const 0))))
        (i32.store8 (i32.add (local.get $o) (i32.shl (local.get $i) (i32.const 1)))
          (i32.sub (i32.shr_u (local.get $q) (i32.const 8)) (i32.shr_u (local.get $u) (i32.const 8))))
        (i32.store8 (i32.add (i32.add (local.get $o) (i32.shl (local.get $i) (i32.const 1))) (i32.const 1))
          (i32.sub (local.get $q) (local.get $u)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tailLoop)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $rowLoop))))
)
