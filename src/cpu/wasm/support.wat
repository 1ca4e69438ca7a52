;; heightbench location-support kernel (support.ts, applySupport in f32): every shape of a list, in order, over rows
;; $r0 … $r1 − 1 of an n × n float32 field — the operations of the f32 path in its order, so the result is
;; bit-identical to it. Distances are float64 as in JavaScript: Math.hypot(a, b) as V8 computes it for two arguments
;; (the larger magnitude m; √((|a|/m)² + (|b|/m)²)·m; 0 when m is 0), then rounded once to float32. The float32 steps
;; (t = d/W, the smoothstep, T − h, the write) are f32 operations, which round exactly as Math.fround of the float64
;; operation on float32 operands; s·w is a float64 product (s is not a float32) rounded once.
;; A shape is 16 float64 at $shapes + 128·s: kind (0 circle, 1 rectangle), x, y, radius, cos θ, sin θ, half sizes,
;; T, W, s, i0, i1, j0, j1 (its pixel box), unused.
(module
  (import "env" "memory" (memory 1))

  (func $hypot (param $a f64) (param $b f64) (result f64)
    (local $m f64) (local $p f64) (local $q f64)
    (local.set $a (f64.abs (local.get $a)))
    (local.set $b (f64.abs (local.get $b)))
    (local.set $m (f64.max (local.get $a) (local.get $b)))
    (if (f64.eq (local.get $m) (f64.const 0)) (then (return (f64.const 0))))
    (local.set $p (f64.div (local.get $a) (local.get $m)))
    (local.set $q (f64.div (local.get $b) (local.get $m)))
    (f64.mul
      (f64.sqrt (f64.add (f64.mul (local.get $p) (local.get $p)) (f64.mul (local.get $q) (local.get $q))))
      (local.get $m)))

  (func (export "rows") (param $field i32) (param $n i32) (param $shapes i32) (param $count i32) (param $r0 i32) (param $r1 i32)
    (param $xmin f64) (param $ymin f64) (param $px f64) (param $pc f64) (result i32)
    (local $s i32) (local $o i32) (local $rect i32) (local $sx f64) (local $sy f64) (local $radius f64) (local $c f64) (local $sn f64)
    (local $hx f64) (local $hy f64) (local $T f32) (local $W f32) (local $st f64) (local $i0 i32) (local $i1 i32) (local $j0 i32) (local $j1 i32)
    (local $i i32) (local $j i32) (local $x f64) (local $y f64) (local $dx f64) (local $dy f64) (local $lx f64) (local $ly f64)
    (local $qx f64) (local $qy f64) (local $dist f64) (local $d f32) (local $t f32) (local $w f32) (local $p i32) (local $h f32)
    (local $writes i32)
    (block $shapesDone (loop $shapeLoop
      (br_if $shapesDone (i32.ge_s (local.get $s) (local.get $count)))
      (local.set $o (i32.add (local.get $shapes) (i32.shl (local.get $s) (i32.const 7))))
      (local.set $rect (f64.eq (f64.load (local.get $o)) (f64.const 1)))
      (local.set $sx (f64.load offset=8 (local.get $o)))
      (local.set $sy (f64.load offset=16 (local.get $o)))
      (local.set $radius (f64.load offset=24 (local.get $o)))
      (local.set $c (f64.load offset=32 (local.get $o)))
      (local.set $sn (f64.load offset=40 (local.get $o)))
      (local.set $hx (f64.load offset=48 (local.get $o)))
      (local.set $hy (f64.load offset=56 (local.get $o)))
      (local.set $T (f32.demote_f64 (f64.load offset=64 (local.get $o))))
      (local.set $W (f32.demote_f64 (f64.load offset=72 (local.get $o))))
      (local.set $st (f64.load offset=80 (local.get $o)))
      (local.set $i0 (i32.trunc_f64_s (f64.load offset=88 (local.get $o))))
      (local.set $i1 (i32.trunc_f64_s (f64.load offset=96 (local.get $o))))
      (local.set $j0 (i32.trunc_f64_s (f64.load offset=104 (local.get $o))))
      (local.set $j1 (i32.trunc_f64_s (f64.load offset=112 (local.get $o))))
      (if (i32.lt_s (local.get $j0) (local.get $r0)) (then (local.set $j0 (local.get $r0))))
      (if (i32.gt_s (local.get $j1) (i32.sub (local.get $r1) (i32.const 1))) (then (local.set $j1 (i32.sub (local.get $r1) (i32.const 1)))))
      (local.set $j (local.get $j0))
      (block $rowsDone (loop $rowLoop
        (br_if $rowsDone (i32.gt_s (local.get $j) (local.get $j1)))
        (local.set $y (f64.add (local.get $ymin) (f64.mul (f64.add (f64.convert_i32_s (local.get $j)) (local.get $pc)) (local.get $px))))
        (local.set $i (local.get $i0))
        (block $pixelsDone (loop $pixelLoop
          (br_if $pixelsDone (i32.gt_s (local.get $i) (local.get $i1)))
          (local.set $x (f64.add (local.get $xmin) (f64.mul (f64.add (f64.convert_i32_s (local.get $i)) (local.get $pc)) (local.get $px))))
          (local.set $dx (f64.sub (local.get $x) (local.get $sx)))
          (local.set $dy (f64.sub (local.get $y) (local.get $sy)))
          (if (local.get $rect)
            (then
              ;; boxDistance (core/geometry.ts)
              (local.set $lx (f64.add (f64.mul (local.get $c) (local.get $dx)) (f64.mul (local.get $sn) (local.get $dy))))
              (local.set $ly (f64.add (f64.mul (f64.neg (local.get $sn)) (local.get $dx)) (f64.mul (local.get $c) (local.get $dy))))
              (local.set $qx (f64.sub (f64.abs (local.get $lx)) (local.get $hx)))
              (local.set $qy (f64.sub (f64.abs (local.get $ly)) (local.get $hy)))
              (local.set $dist
                (f64.add
                  (call $hypot (f64.max (local.get $qx) (f64.const 0)) (f64.max (local.get $qy) (f64.const 0)))
                  (f64.min (f64.max (local.get $qx) (local.get $qy)) (f64.const 0)))))
            (else (local.set $dist (f64.sub (call $hypot (local.get $dx) (local.get $dy)) (local.get $radius)))))
          (local.set $d (f32.demote_f64 (local.get $dist)))
          (block $next
            (if (f32.le (local.get $d) (f32.const 0))
              (then (local.set $w (f32.const 1)))
              (else
                (br_if $next (i32.eqz (f32.lt (local.get $d) (local.get $W))))
                (local.set $t (f32.div (local.get $d) (local.get $W)))
                (local.set $w (f32.sub (f32.const 1)
                  (f32.mul (f32.mul (local.get $t) (local.get $t)) (f32.sub (f32.const 3) (f32.mul (f32.const 2) (local.get $t))))))))
            (local.set $p (i32.add (local.get $field) (i32.shl (i32.add (i32.mul (local.get $j) (local.get $n)) (local.get $i)) (i32.const 2))))
            (local.set $h (f32.load (local.get $p)))
            (f32.store (local.get $p)
              (f32.add (local.get $h)
                (f32.mul
                  (f32.demote_f64 (f64.mul (local.get $st) (f64.promote_f32 (local.get $w))))
                  (f32.sub (local.get $T) (local.get $h)))))
            (local.set $writes (i32.add (local.get $writes) (i32.const 1))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $pixelLoop)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $rowLoop)))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $shapeLoop)))
    (local.get $writes)))
