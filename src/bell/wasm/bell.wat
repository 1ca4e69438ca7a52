;; heightbench bell accumulation kernel, float64, WebAssembly SIMD (f64x2).
;; For every output row j and generator k in order: row[i] += fx_k[i] · fy_k[j] over the column range [a0, a1) given
;; for (j, k) — the same products, added in the same order, as the JavaScript loop of src/bell/accumulate.ts (every
;; f64 multiply and add rounds exactly as JavaScript's), so the field is bit-identical to it.
;; Pointers are byte offsets: out (n × n f64, row-major), fx and fy (m × n f64, generator-major), ranges (n × m × 2
;; i32: a0, a1 per row j and generator k).
(module
  (import "env" "memory" (memory 1))

  (func (export "accumulate") (param $out i32) (param $fx i32) (param $fy i32) (param $rng i32) (param $n i32) (param $m i32)
    (local $j i32) (local $k i32) (local $row i32) (local $r i32) (local $a0 i32) (local $a1 i32)
    (local $i i32) (local $p i32) (local $x i32) (local $b f64) (local $bv v128)
    (local.set $r (local.get $rng))
    (block $rows_done (loop $rows
      (br_if $rows_done (i32.ge_u (local.get $j) (local.get $n)))
      (local.set $row (i32.add (local.get $out) (i32.shl (i32.mul (local.get $j) (local.get $n)) (i32.const 3))))
      (local.set $k (i32.const 0))
      (block $gens_done (loop $gens
        (br_if $gens_done (i32.ge_u (local.get $k) (local.get $m)))
        (local.set $a0 (i32.load (local.get $r)))
        (local.set $a1 (i32.load offset=4 (local.get $r)))
        (if (i32.lt_s (local.get $a0) (local.get $a1))
          (then
            (local.set $b (f64.load (i32.add (local.get $fy)
              (i32.shl (i32.add (i32.mul (local.get $k) (local.get $n)) (local.get $j)) (i32.const 3)))))
            (local.set $bv (f64x2.splat (local.get $b)))
            (local.set $x (i32.add (local.get $fx) (i32.shl (i32.mul (local.get $k) (local.get $n)) (i32.const 3))))
            (local.set $i (local.get $a0))
            (block $vd (loop $vec
              (br_if $vd (i32.gt_s (i32.add (local.get $i) (i32.const 2)) (local.get $a1)))
              (local.set $p (i32.add (local.get $row) (i32.shl (local.get $i) (i32.const 3))))
              (v128.store (local.get $p)
                (f64x2.add (v128.load (local.get $p))
                  (f64x2.mul (v128.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 3)))) (local.get $bv))))
              (local.set $i (i32.add (local.get $i) (i32.const 2)))
              (br $vec)))
            (if (i32.lt_s (local.get $i) (local.get $a1))
              (then
                (local.set $p (i32.add (local.get $row) (i32.shl (local.get $i) (i32.const 3))))
                (f64.store (local.get $p)
                  (f64.add (f64.load (local.get $p))
                    (f64.mul (f64.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 3)))) (local.get $b))))))))
        (local.set $r (i32.add (local.get $r) (i32.const 8)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $gens)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $rows))))
)
