;; heightbench outer blend kernel, float32 (outer.ts): every operation an f32 multiply, add, divide or square root in the
;; order of the f32 path of applyOuterBlend, so the result is bit-identical to it (f32 operations round exactly as
;; Math.fround of the float64 operation).
;; Per row j the caller gives the runs at $runs + 16j (i32 fl, sl, sr, fr: [0, fl) and [fr, n) fully outer, [fl, sl)
;; and [sr, fr) in the band, the rest untouched), the column offsets dx[i] at $dx and the row offsets dy[j] at $dy.
;; The outer height is the constant $ho, or the field at $outer when $fromField is 1.
(module
  (import "env" "memory" (memory 1))
  (global (export "layoutHash") i32 (i32.const {{layoutHash}}))

  (func $outerAt (param $outer i32) (param $k i32) (param $ho f32) (param $fromField i32) (result f32)
    (if (result f32) (local.get $fromField)
      (then (f32.load (i32.add (local.get $outer) (i32.shl (local.get $k) (i32.const 2)))))
      (else (local.get $ho))))

  ;; field[k] = 0·field[k] + H_outer over row pixels [a, b) (α = 1).
  (func $full (param $field i32) (param $outer i32) (param $row i32) (param $a i32) (param $b i32) (param $ho f32) (param $fromField i32)
    (local $k i32) (local $p i32)
    (local.set $k (i32.add (local.get $row) (local.get $a)))
    (block $done (loop $l
      (br_if $done (i32.ge_s (local.get $k) (i32.add (local.get $row) (local.get $b))))
      (local.set $p (i32.add (local.get $field) (i32.shl (local.get $k) (i32.const 2))))
      (f32.store (local.get $p)
        (f32.add (f32.mul (f32.const 0) (f32.load (local.get $p)))
                 (call $outerAt (local.get $outer) (local.get $k) (local.get $ho) (local.get $fromField))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $l))))

  ;; Band pixels [a, b) of the row: r = √(dx² + dy²), t = min((r − inner)/width, 1), α = t²(3 − 2t),
  ;; field = (1 − α)·field + α·H_outer.
  (func $band (param $field i32) (param $outer i32) (param $row i32) (param $a i32) (param $b i32) (param $dx i32) (param $dy2 f32)
    (param $inner f32) (param $width f32) (param $ho f32) (param $fromField i32)
    (local $i i32) (local $p i32) (local $d f32) (local $t f32) (local $al f32)
    (local.set $i (local.get $a))
    (block $done (loop $l
      (br_if $done (i32.ge_s (local.get $i) (local.get $b)))
      (local.set $d (f32.load (i32.add (local.get $dx) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $t (f32.div
        (f32.sub (f32.sqrt (f32.add (f32.mul (local.get $d) (local.get $d)) (local.get $dy2))) (local.get $inner))
        (local.get $width)))
      (if (f32.gt (local.get $t) (f32.const 1)) (then (local.set $t (f32.const 1))))
      (local.set $al (f32.mul (f32.mul (local.get $t) (local.get $t)) (f32.sub (f32.const 3) (f32.mul (f32.const 2) (local.get $t)))))
      (local.set $p (i32.add (local.get $field) (i32.shl (i32.add (local.get $row) (local.get $i)) (i32.const 2))))
      (f32.store (local.get $p)
        (f32.add
          (f32.mul (f32.sub (f32.const 1) (local.get $al)) (f32.load (local.get $p)))
          (f32.mul (local.get $al) (call $outerAt (local.get $outer) (i32.add (local.get $row) (local.get $i)) (local.get $ho) (local.get $fromField)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l))))

  ;; Rows $j0..$j1 − 1 of the n × n field at $field.
  (func (export "blendRows") (param $field i32) (param $outer i32) (param $n i32) (param $runs i32) (param $dx i32) (param $dy i32)
    (param $j0 i32) (param $j1 i32) (param $inner f32) (param $width f32) (param $ho f32) (param $fromField i32)
    (local $j i32) (local $row i32) (local $q i32) (local $d f32) (local $dy2 f32)
    (local.set $j (local.get $j0))
    (block $done (loop $rows
      (br_if $done (i32.ge_s (local.get $j) (local.get $j1)))
      (local.set $row (i32.mul (local.get $j) (local.get $n)))
      (local.set $q (i32.add (local.get $runs) (i32.shl (local.get $j) (i32.const 4))))
      (local.set $d (f32.load (i32.add (local.get $dy) (i32.shl (local.get $j) (i32.const 2)))))
      (local.set $dy2 (f32.mul (local.get $d) (local.get $d)))
      (call $full (local.get $field) (local.get $outer) (local.get $row) (i32.const 0) (i32.load (local.get $q)) (local.get $ho) (local.get $fromField))
      (call $full (local.get $field) (local.get $outer) (local.get $row) (i32.load offset=12 (local.get $q)) (local.get $n) (local.get $ho) (local.get $fromField))
      (call $band (local.get $field) (local.get $outer) (local.get $row) (i32.load (local.get $q)) (i32.load offset=4 (local.get $q)) (local.get $dx)
        (local.get $dy2) (local.get $inner) (local.get $width) (local.get $ho) (local.get $fromField))
      (call $band (local.get $field) (local.get $outer) (local.get $row) (i32.load offset=8 (local.get $q)) (i32.load offset=12 (local.get $q)) (local.get $dx)
        (local.get $dy2) (local.get $inner) (local.get $width) (local.get $ho) (local.get $fromField))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $rows))))
)
