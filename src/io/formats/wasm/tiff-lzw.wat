;; heightbench TIFF LZW kernel: decodes as tiff.ts lzwDecode does, code for code — MSB-first codes of 9 to 12 bits,
;; 256 clears the table, 257 ends, the width grows when next + 1 reaches 2^width (TIFF's early change), output past
;; `max` bytes dropped. Returns the bytes written, or a negative reason the caller turns into lzwDecode's own answer:
;; −1 a code above 255 right after a clear code, −2 a code beyond the table (the bit position, the code and the table's size then in the state), −3 a
;; case the loop answers (a code equal to a full table's next entry).
;; Each table entry is the address of its string: a literal's byte in a table of the 256 bytes, a longer string's place
;; in the output (the string of the code before it, then the first byte of the string after it, which follows it
;; there). A code's string is copied sixteen bytes at a time rather than walked back through a prefix chain; a copy may
;; write up to 15 bytes past its string, and a string may run past `max`: bytes the next strings overwrite, or past
;; the output the caller takes.
;; Memory (exported, grown by the caller): start i32[4096] at 0, length i32[4096] at 16384, the 256 bytes 0…255 at
;; 32768 (16 to spare after them), state at 40960 (bit, code, next), the source at $src followed by two zero bytes,
;; output at $out with 4112 bytes to spare after `max`.
(module
  (memory (export "memory") 1)

  (func (export "lzw") (param $src i32) (param $len i32) (param $out i32) (param $max i32) (result i32)
    (local $i i32) (local $bit i32) (local $total i32) (local $width i32) (local $next i32) (local $old i32)
    (local $o i32) (local $at i32) (local $chunk i32) (local $code i32) (local $prev i32) (local $l i32)
    (local $s i32) (local $d i32) (local $k i32) (local $mask i32)
    (block $init (loop $fill
      (br_if $init (i32.ge_u (local.get $i) (i32.const 256)))
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (i32.add (i32.const 32768) (local.get $i)))
      (i32.store offset=16384 (i32.shl (local.get $i) (i32.const 2)) (i32.const 1))
      (i32.store8 offset=32768 (local.get $i) (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $fill)))
    (local.set $total (i32.shl (local.get $len) (i32.const 3)))
    (local.set $width (i32.const 9))
    (local.set $mask (i32.const 511))
    (local.set $next (i32.const 258))
    (local.set $old (i32.const -1))
    (block $stop (loop $codes
      (br_if $stop (i32.ge_s (local.get $o) (local.get $max)))
      (br_if $stop (i32.gt_s (i32.add (local.get $bit) (local.get $width)) (local.get $total)))
      (local.set $at (i32.add (local.get $src) (i32.shr_u (local.get $bit) (i32.const 3))))
      (local.set $chunk (i32.or (i32.or
        (i32.shl (i32.load8_u (local.get $at)) (i32.const 16))
        (i32.shl (i32.load8_u offset=1 (local.get $at)) (i32.const 8)))
        (i32.load8_u offset=2 (local.get $at))))
      (local.set $code (i32.and
        (i32.shr_u (local.get $chunk) (i32.sub (i32.sub (i32.const 24) (i32.and (local.get $bit) (i32.const 7))) (local.get $width)))
        (local.get $mask)))
      (local.set $bit (i32.add (local.get $bit) (local.get $width)))
      (br_if $stop (i32.eq (local.get $code) (i32.const 257)))
      (if (i32.eq (local.get $code) (i32.const 256)) (then
        (local.set $width (i32.const 9))
        (local.set $mask (i32.const 511))
        (local.set $next (i32.const 258))
        (local.set $old (i32.const -1))
        (br $codes)))
      (local.set $d (i32.add (local.get $out) (local.get $o)))
      (if (i32.lt_s (local.get $old) (i32.const 0)) (then
        (if (i32.gt_u (local.get $code) (i32.const 255)) (then
          (i32.store (i32.const 40960) (local.get $bit))
          (i32.store (i32.const 40964) (local.get $code))
          (return (i32.const -1))))
        (i32.store8 (local.get $d) (local.get $code))
        (local.set $prev (local.get $d))
        (local.set $o (i32.add (local.get $o) (i32.const 1)))
        (local.set $old (local.get $code))
        (br $codes)))
      (if (i32.lt_u (local.get $code) (local.get $next))
        (then
          ;; the new entry: the old code's string and the first byte of this one, which follows it in the output
          (if (i32.lt_u (local.get $next) (i32.const 4096)) (then
            (i32.store (i32.shl (local.get $next) (i32.const 2)) (local.get $prev))
            (i32.store offset=16384 (i32.shl (local.get $next) (i32.const 2))
              (i32.add (i32.load offset=16384 (i32.shl (local.get $old) (i32.const 2))) (i32.const 1)))
            (local.set $next (i32.add (local.get $next) (i32.const 1)))))
          (local.set $l (i32.load offset=16384 (i32.shl (local.get $code) (i32.const 2))))
          (local.set $s (i32.load (i32.shl (local.get $code) (i32.const 2))))
          (local.set $k (i32.const 0))
          (loop $copy
            (v128.store (i32.add (local.get $d) (local.get $k)) (v128.load (i32.add (local.get $s) (local.get $k))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (br_if $copy (i32.lt_s (local.get $k) (local.get $l)))))
        (else
          (if (i32.ne (local.get $code) (local.get $next)) (then
            (i32.store (i32.const 40960) (local.get $bit))
            (i32.store (i32.const 40964) (local.get $code))
            (i32.store (i32.const 40968) (local.get $next))
            (return (i32.const -2))))
          (if (i32.ge_u (local.get $next) (i32.const 4096)) (then (return (i32.const -3))))
          ;; the code being defined: the old code's string (just before, in the output) and its first byte
          (local.set $l (i32.load offset=16384 (i32.shl (local.get $old) (i32.const 2))))
          (i32.store (i32.shl (local.get $next) (i32.const 2)) (local.get $prev))
          (i32.store offset=16384 (i32.shl (local.get $next) (i32.const 2)) (i32.add (local.get $l) (i32.const 1)))
          (local.set $next (i32.add (local.get $next) (i32.const 1)))
          (local.set $k (i32.const 0))
          (loop $copy2
            (v128.store (i32.add (local.get $d) (local.get $k)) (v128.load (i32.add (local.get $prev) (local.get $k))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (br_if $copy2 (i32.lt_s (local.get $k) (local.get $l))))
          (i32.store8 (i32.add (local.get $d) (local.get $l)) (i32.load8_u (local.get $prev)))
          (local.set $l (i32.add (local.get $l) (i32.const 1)))))
      (local.set $prev (local.get $d))
      (local.set $o (i32.add (local.get $o) (local.get $l)))
      (local.set $o (select (local.get $o) (local.get $max) (i32.lt_s (local.get $o) (local.get $max))))
      (local.set $old (local.get $code))
      ;; $mask is 2^width − 1: next + 1 reaching 2^width is next reaching the mask
      (if (i32.and (i32.ge_s (local.get $next) (local.get $mask)) (i32.lt_s (local.get $width) (i32.const 12)))
        (then
          (local.set $width (i32.add (local.get $width) (i32.const 1)))
          (local.set $mask (i32.add (i32.shl (local.get $mask) (i32.const 1)) (i32.const 1)))))
      (br $codes)))
    (local.get $o))
)
