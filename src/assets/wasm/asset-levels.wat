;; Asset level kernel: decodes a level's 16-bit codes to metres and finds the first texel of a level that is not the
;; mip filter of the level above — decodeCodes and firstMipMismatch of src/assets/assets.ts, the references these
;; must equal exactly (test/asset-loading.test.ts). Every step is the same float64 operation in the same order, and
;; the clamp and truncation store a code as a Uint16Array does (a NaN gives 0).
(module
  (memory (export "memory") 1)

  ;; dst[k] = f32(src[k]·mpc + off), k < count (src u16, dst f32).
  (func (export "decode") (param $src i32) (param $dst i32) (param $count i32) (param $mpc f64) (param $off f64)
    (local $k i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
      (f32.store
        (i32.add (local.get $dst) (i32.shl (local.get $k) (i32.const 2)))
        (f32.demote_f64 (f64.add (f64.mul (f64.convert_i32_u (i32.load16_u (i32.add (local.get $src) (i32.shl (local.get $k) (i32.const 1))))) (local.get $mpc)) (local.get $off))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $l))))

  ;; Index of the first texel of $got (u16, side $m) that is not the bilinear filter of $prev (f32 metres, side $n)
  ;; re-encoded, or −1. Per-axis addressing at $i0, $i1 (i32 × m) and weights $f, $g (f64 × m), as mipAxis makes them.
  (func (export "mismatch") (param $prev i32) (param $n i32) (param $got i32) (param $m i32)
    (param $i0 i32) (param $i1 i32) (param $f i32) (param $g i32) (param $mpc f64) (param $off f64) (param $max f64) (result i32)
    (local $i i32) (local $j i32) (local $r0 i32) (local $r1 i32) (local $x0 i32) (local $x1 i32)
    (local $fx f64) (local $gx f64) (local $fy f64) (local $gy f64) (local $a f64) (local $b f64) (local $q i32)
    (block $done (loop $rows
      (br_if $done (i32.ge_u (local.get $j) (local.get $m)))
      (local.set $r0 (i32.mul (i32.load (i32.add (local.get $i0) (i32.shl (local.get $j) (i32.const 2)))) (local.get $n)))
      (local.set $r1 (i32.mul (i32.load (i32.add (local.get $i1) (i32.shl (local.get $j) (i32.const 2)))) (local.get $n)))
      (local.set $fy (f64.load (i32.add (local.get $f) (i32.shl (local.get $j) (i32.const 3)))))
      (local.set $gy (f64.load (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 3)))))
      (local.set $i (i32.const 0))
      (block $rowDone (loop $cols
        (br_if $rowDone (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $x0 (i32.load (i32.add (local.get $i0) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $x1 (i32.load (i32.add (local.get $i1) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $fx (f64.load (i32.add (local.get $f) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $gx (f64.load (i32.add (local.get $g) (i32.shl (local.get $i) (i32.const 3)))))
        ;; a = prev[r0 + x0]·gx + prev[r0 + x1]·fx; b the same on row r1
        (local.set $a (f64.add
          (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $prev) (i32.shl (i32.add (local.get $r0) (local.get $x0)) (i32.const 2))))) (local.get $gx))
          (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $prev) (i32.shl (i32.add (local.get $r0) (local.get $x1)) (i32.const 2))))) (local.get $fx))))
        (local.set $b (f64.add
          (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $prev) (i32.shl (i32.add (local.get $r1) (local.get $x0)) (i32.const 2))))) (local.get $gx))
          (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $prev) (i32.shl (i32.add (local.get $r1) (local.get $x1)) (i32.const 2))))) (local.get $fx))))
        ;; q = min(max, max(0, floor((a·gy + b·fy − off)/mpc + 0.5))), NaN → 0 ($max: the largest code)
        (local.set $q (i32.trunc_sat_f64_s
          (f64.min (local.get $max)
            (f64.max (f64.const 0)
              (f64.floor (f64.add (f64.div (f64.sub (f64.add (f64.mul (local.get $a) (local.get $gy)) (f64.mul (local.get $b) (local.get $fy))) (local.get $off)) (local.get $mpc)) (f64.const 0.5)))))))
        (if (i32.ne (local.get $q)
              (i32.load16_u (i32.add (local.get $got) (i32.shl (i32.add (i32.mul (local.get $j) (local.get $m)) (local.get $i)) (i32.const 1)))))
          (then (return (i32.add (i32.mul (local.get $j) (local.get $m)) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $cols)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $rows)))
    (i32.const -1))
)
