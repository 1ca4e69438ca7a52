;; PNG16 writer kernel: rows of 16-bit grey codes to PNG scanlines with filter type 2 (Up), big-endian samples — what
;; upFilteredRows in src/io/png16.ts writes (its loop is the reference this kernel must equal byte for byte).
;; The caller copies rows of little-endian codes into this module's memory at $in: first the row above the block
;; (zeros above the image's first row), then the block's $rows rows; each scanline goes to $out + r·(1 + 2·width):
;; its filter byte 2, then for each sample its high and low byte minus the byte above, modulo 256.
(module
  (memory (export "memory") 1)

  (func (export "up") (param $in i32) (param $out i32) (param $width i32) (param $rows i32)
    (local $r i32) (local $above i32) (local $cur i32) (local $o i32) (local $i i32) (local $vec i32)
    (local $rowBytes i32) (local $q i32) (local $u i32)
    (local.set $rowBytes (i32.shl (local.get $width) (i32.const 1)))
    (local.set $vec (i32.and (local.get $width) (i32.const -8)))
    (block $rowsDone (loop $rowLoop
      (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $above (i32.add (local.get $in) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $cur (i32.add (local.get $above) (local.get $rowBytes)))
      (local.set $o (i32.add (local.get $out) (i32.mul (local.get $r) (i32.add (local.get $rowBytes) (i32.const 1)))))
      (i32.store8 (local.get $o) (i32.const 2))
      (local.set $o (i32.add (local.get $o) (i32.const 1)))
      ;; eight samples at a time: swap each sample's bytes (big-endian), subtract byte by byte
      (local.set $i (i32.const 0))
      (block $vecDone (loop $vecLoop
        (br_if $vecDone (i32.ge_u (local.get $i) (local.get $vec)))
        (v128.store
          (i32.add (local.get $o) (i32.shl (local.get $i) (i32.const 1)))
          (i8x16.sub
            (i8x16.shuffle 1 0 3 2 5 4 7 6 9 8 11 10 13 12 15 14
              (v128.load (i32.add (local.get $cur) (i32.shl (local.get $i) (i32.const 1)))) (v128.const i32x4 0 0 0 0))
            (i8x16.shuffle 1 0 3 2 5 4 7 6 9 8 11 10 13 12 15 14
              (v128.load (i32.add (local.get $above) (i32.shl (local.get $i) (i32.const 1)))) (v128.const i32x4 0 0 0 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $vecLoop)))
      ;; the last width mod 8 samples one at a time
      (block $tailDone (loop $tailLoop
        (br_if $tailDone (i32.ge_u (local.get $i) (local.get $width)))
        (local.set $q (i32.load16_u (i32.add (local.get $cur) (i32.shl (local.get $i) (i32.const 1)))))
        (local.set $u (i32.load16_u (i32.add (local.get $above) (i32.shl (local.get $i) (i32.const 1)))))
        (i32.store8 (i32.add (local.get $o) (i32.shl (local.get $i) (i32.const 1)))
          (i32.sub (i32.shr_u (local.get $q) (i32.const 8)) (i32.shr_u (local.get $u) (i32.const 8))))
        (i32.store8 (i32.add (i32.add (local.get $o) (i32.shl (local.get $i) (i32.const 1))) (i32.const 1))
          (i32.sub (local.get $q) (local.get $u)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tailLoop)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rowLoop))))
)
