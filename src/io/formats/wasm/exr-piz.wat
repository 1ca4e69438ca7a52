;; heightbench EXR PIZ kernel: the three per-block loops of exr-piz.ts PizDecoder, each equal to its JavaScript loop —
;; the LUT from the bitmap (`lut`), the Huffman table fill and bit-stream decode (`huf`), the inverse wavelet (`wav`)
;; and the words back through the LUT (`unlut`). The code-length table and the canonical first codes are parsed and
;; checked in JavaScript and written here. `huf` returns 0, or 1 for any fault in the data: the caller then runs the
;; JavaScript decoder, which names the fault (so a refusal is the same FormatError with or without the kernel).
;; Memory (exported, grown by the caller): the fixed tables at the exported offsets, then the words at $OUT
;; (nRaw u16) and the bit stream after them at the `bitsAt` argument (16 zero bytes of padding written by the caller).
(module
  (memory (export "memory") 11)
  (global $BITMAP (export "BITMAP") i32 (i32.const 0))          ;; 8192 bytes
  (global $LUT (export "LUT") i32 (i32.const 8192))             ;; 65536 u16
  (global $PRESENT (export "PRESENT") i32 (i32.const 139264))   ;; ≤ 65537 i32: (symbol << 6) | length, ascending
  (global $COUNT (export "COUNT") i32 (i32.const 401424))       ;; 59 f64: codes per length
  (global $FIRST (export "FIRST") i32 (i32.const 401904))       ;; 59 f64: first canonical code per length
  (global $SSTART (export "SSTART") i32 (i32.const 402384))     ;; 60 i32: first rank per length
  (global $FILL (export "FILL") i32 (i32.const 402624))         ;; 60 i32: scratch (next rank per length)
  (global $SORTED (export "SORTED") i32 (i32.const 402864))     ;; 65537 i32: symbols by rank
  (global $FAST (export "FAST") i32 (i32.const 665024))         ;; 2^P ≤ 2^11 i32: (symbol << 6) | length, see huf
  (global $FIRST64 i32 (i32.const 673216))                      ;; 59 i64: FIRST as integers
  (global $COUNT64 i32 (i32.const 673696))                      ;; 59 i64: COUNT as integers
  (global $OUT (export "OUT") i32 (i32.const 674176))           ;; the block's words

  ;; LUT entries at and above $lutHigh are 0 (the memory starts zeroed).
  (global $lutHigh (mut i32) (i32.const 0))

  ;; LUT[k] = the k-th value present (0 always), the rest 0; returns the number of values (maxValue + 1). Only the
  ;; bitmap bytes lo..hi can be nonzero (the caller cleared the rest); zero bytes are skipped whole.
  (func (export "lut") (param $lo i32) (param $hi i32) (result i32)
    (local $i i32) (local $k i32) (local $byte i32) (local $bit i32)
    ;; value 0 is always present, whether or not its bit is set
    (i32.store16 (global.get $LUT) (i32.const 0))
    (local.set $k (i32.const 1))
    (local.set $i (local.get $lo))
    (block $done (loop $next
      (br_if $done (i32.gt_u (local.get $i) (local.get $hi)))
      (local.set $byte (i32.load8_u (local.get $i)))
      (if (i32.eqz (local.get $i)) (then (local.set $byte (i32.and (local.get $byte) (i32.const 0xfe)))))
      ;; a full byte (near-uniform words, FLOAT low halves): its eight values at once
      (if (i32.eq (local.get $byte) (i32.const 255)) (then
        (local.set $bit (i32.add (global.get $LUT) (i32.shl (local.get $k) (i32.const 1))))
        (local.set $byte (i32.shl (local.get $i) (i32.const 3)))
        (i32.store16 (local.get $bit) (local.get $byte))
        (i32.store16 offset=2 (local.get $bit) (i32.or (local.get $byte) (i32.const 1)))
        (i32.store16 offset=4 (local.get $bit) (i32.or (local.get $byte) (i32.const 2)))
        (i32.store16 offset=6 (local.get $bit) (i32.or (local.get $byte) (i32.const 3)))
        (i32.store16 offset=8 (local.get $bit) (i32.or (local.get $byte) (i32.const 4)))
        (i32.store16 offset=10 (local.get $bit) (i32.or (local.get $byte) (i32.const 5)))
        (i32.store16 offset=12 (local.get $bit) (i32.or (local.get $byte) (i32.const 6)))
        (i32.store16 offset=14 (local.get $bit) (i32.or (local.get $byte) (i32.const 7)))
        (local.set $k (i32.add (local.get $k) (i32.const 8)))
        (local.set $byte (i32.const 0))))
      (local.set $bit (i32.const 0))
      (block $bitsDone (loop $bits
        (br_if $bitsDone (i32.eqz (local.get $byte)))
        (if (i32.and (local.get $byte) (i32.const 1)) (then
          (i32.store16 (i32.add (global.get $LUT) (i32.shl (local.get $k) (i32.const 1)))
            (i32.or (i32.shl (local.get $i) (i32.const 3)) (local.get $bit)))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))))
        (local.set $byte (i32.shr_u (local.get $byte) (i32.const 1)))
        (local.set $bit (i32.add (local.get $bit) (i32.const 1)))
        (br $bits)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (if (i32.lt_u (local.get $k) (global.get $lutHigh)) (then
      (memory.fill (i32.add (global.get $LUT) (i32.shl (local.get $k) (i32.const 1))) (i32.const 0)
        (i32.shl (i32.sub (global.get $lutHigh) (local.get $k)) (i32.const 1)))))
    (global.set $lutHigh (local.get $k))
    (local.get $k))

  ;; words[from .. from + n) = LUT[words[i]]
  (func (export "unlut") (param $from i32) (param $n i32)
    (local $a i32) (local $e i32)
    (local.set $a (i32.add (global.get $OUT) (i32.shl (local.get $from) (i32.const 1))))
    (local.set $e (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 1))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $a) (local.get $e)))
      (i32.store16 (local.get $a)
        (i32.load16_u (i32.add (global.get $LUT) (i32.shl (i32.load16_u (local.get $a)) (i32.const 1)))))
      (local.set $a (i32.add (local.get $a) (i32.const 2)))
      (br $next))))

;; The code-length table of symbols im..iM from byte $at, at most $n bytes, as PizDecoder.readTable reads it (6 bits
  ;; MSB first a symbol; 59..62 short runs of zero lengths, 63 + 8 bits a long run): the symbols with a code listed in
  ;; PRESENT, COUNT per length. Returns how many are listed, or −1 for a fault; $tableEnd: the byte after the table.
  (global $tableEnd (export "tableEnd") (mut i32) (i32.const 0))
  (global $tableMaxLen (export "tableMaxLen") (mut i32) (i32.const 0))
  (func (export "table") (param $at i32) (param $n i32) (param $im i32) (param $iM i32) (result i32)
    (local $p i32) (local $end i32) (local $acc i32) (local $bits i32) (local $s i32) (local $l i32) (local $run i32)
    (local $np i32) (local $maxLen i32) (local $c i32)
    (memory.fill (global.get $COUNT) (i32.const 0) (i32.const 472))
    (local.set $p (local.get $at))
    (local.set $end (i32.add (local.get $at) (local.get $n)))
    (local.set $s (local.get $im))
    (block $done (loop $next
      (br_if $done (i32.gt_u (local.get $s) (local.get $iM)))
      (if (i32.lt_u (local.get $bits) (i32.const 6)) (then
        (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
        (local.set $acc (i32.and (i32.or (i32.shl (local.get $acc) (i32.const 8)) (i32.load8_u (local.get $p))) (i32.const 0xffff)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $bits (i32.add (local.get $bits) (i32.const 8)))))
      (local.set $bits (i32.sub (local.get $bits) (i32.const 6)))
      (local.set $l (i32.and (i32.shr_u (local.get $acc) (local.get $bits)) (i32.const 63)))
      (if (i32.ge_u (local.get $l) (i32.const 59))
        (then
          (local.set $run (i32.sub (local.get $l) (i32.const 57)))
          (if (i32.eq (local.get $l) (i32.const 63)) (then
            (if (i32.lt_u (local.get $bits) (i32.const 8)) (then
              (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
              (local.set $acc (i32.and (i32.or (i32.shl (local.get $acc) (i32.const 8)) (i32.load8_u (local.get $p))) (i32.const 0xffff)))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (local.set $bits (i32.add (local.get $bits) (i32.const 8)))))
            (local.set $bits (i32.sub (local.get $bits) (i32.const 8)))
            (local.set $run (i32.add (i32.and (i32.shr_u (local.get $acc) (local.get $bits)) (i32.const 255)) (i32.const 6)))))
          (if (i32.gt_u (i32.add (local.get $s) (local.get $run)) (i32.add (local.get $iM) (i32.const 1))) (then (return (i32.const -1))))
          (local.set $s (i32.add (local.get $s) (local.get $run))))
        (else
          (if (local.get $l) (then
            (i32.store (i32.add (global.get $PRESENT) (i32.shl (local.get $np) (i32.const 2)))
              (i32.or (i32.shl (local.get $s) (i32.const 6)) (local.get $l)))
            (local.set $np (i32.add (local.get $np) (i32.const 1)))
            (local.set $c (i32.add (global.get $COUNT) (i32.shl (local.get $l) (i32.const 3))))
            (f64.store (local.get $c) (f64.add (f64.load (local.get $c)) (f64.const 1)))
            (if (i32.gt_u (local.get $l) (local.get $maxLen)) (then (local.set $maxLen (local.get $l))))))
          (local.set $s (i32.add (local.get $s) (i32.const 1)))))
      (br $next)))
    (global.set $tableEnd (local.get $p))
    (global.set $tableMaxLen (local.get $maxLen))
    (local.get $np))

    ;; Huffman decode of the MSB-first bit stream of nBits bits at bitsAt into nRaw words at $OUT; the run-length
  ;; pseudo-symbol is iM. Codes of ≤ $P bits decode by one look-up in $FAST ((symbol << 6) | length); an entry for
  ;; the first $P bits of longer codes holds the shortest length l > $P any of them has, and the code is found by
  ;; trying lengths l, l + 1 … against each length's canonical range — the shortest match, as the bit-by-bit search
  ;; of the JavaScript path finds it (the caller runs the kernel only on prefix-free tables, whose match is unique).
  ;; A 64-bit accumulator holds every code (≤ 52 bits) and the run byte after it.
  (func (export "huf") (param $nPresent i32) (param $iM i32) (param $P i32) (param $maxLen i32) (param $nBits i32)
    (param $nRaw i32) (param $bitsAt i32) (result i32)
    (local $s i32) (local $l i32) (local $rank i32) (local $c i32) (local $base i32) (local $n i32) (local $i i32)
    (local $entry i32) (local $a i32) (local $pmask i64) (local $idx i32) (local $lo i32) (local $hi i32)
    (local $o i32) (local $bp i32) (local $acc i64) (local $accBits i32) (local $pos i32)
    (local $e i32) (local $sym i32) (local $len i32) (local $d i64) (local $run i32) (local $prev i32) (local $oa i32) (local $oe i32)
    ;; first and count per length as integers; fill[l] = sortedStart[l]; the fast table cleared
    (local.set $l (i32.const 0))
    (block $cv (loop $conv
      (br_if $cv (i32.gt_u (local.get $l) (i32.const 58)))
      (i64.store (i32.add (global.get $FIRST64) (i32.shl (local.get $l) (i32.const 3)))
        (i64.trunc_f64_u (f64.load (i32.add (global.get $FIRST) (i32.shl (local.get $l) (i32.const 3))))))
      (i64.store (i32.add (global.get $COUNT64) (i32.shl (local.get $l) (i32.const 3)))
        (i64.trunc_f64_u (f64.load (i32.add (global.get $COUNT) (i32.shl (local.get $l) (i32.const 3))))))
      (local.set $l (i32.add (local.get $l) (i32.const 1)))
      (br $conv)))
    (memory.copy (global.get $FILL) (global.get $SSTART) (i32.const 240))
    (memory.fill (global.get $FAST) (i32.const 0) (i32.shl (i32.const 4) (local.get $P)))
    ;; symbols by rank; codes of ≤ P bits into the fast table (a clash: not a prefix code)
    (block $filled (loop $sym
      (br_if $filled (i32.ge_u (local.get $idx) (local.get $nPresent)))
      (local.set $entry (i32.load (i32.add (global.get $PRESENT) (i32.shl (local.get $idx) (i32.const 2)))))
      (local.set $s (i32.shr_u (local.get $entry) (i32.const 6)))
      (local.set $l (i32.and (local.get $entry) (i32.const 63)))
      (local.set $a (i32.add (global.get $FILL) (i32.shl (local.get $l) (i32.const 2))))
      (local.set $rank (i32.load (local.get $a)))
      (i32.store (local.get $a) (i32.add (local.get $rank) (i32.const 1)))
      (i32.store (i32.add (global.get $SORTED) (i32.shl (local.get $rank) (i32.const 2))) (local.get $s))
      (if (i32.le_u (local.get $l) (local.get $P)) (then
        (local.set $c (i32.add
          (i32.wrap_i64 (i64.load (i32.add (global.get $FIRST64) (i32.shl (local.get $l) (i32.const 3)))))
          (i32.sub (local.get $rank) (i32.load (i32.add (global.get $SSTART) (i32.shl (local.get $l) (i32.const 2)))))))
        (local.set $n (i32.shl (i32.const 1) (i32.sub (local.get $P) (local.get $l))))
        (local.set $base (i32.add (global.get $FAST) (i32.shl (i32.mul (local.get $c) (local.get $n)) (i32.const 2))))
        (local.set $i (i32.const 0))
        (block $set (loop $one
          (br_if $set (i32.ge_u (local.get $i) (local.get $n)))
          (if (i32.load (local.get $base)) (then (return (i32.const 1))))
          (i32.store (local.get $base) (local.get $entry))
          (local.set $base (i32.add (local.get $base) (i32.const 4)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $one)))))
      (local.set $idx (i32.add (local.get $idx) (i32.const 1)))
      (br $sym)))
    ;; the first P bits of longer codes: from the longest length down, so that the shortest length stays
    (local.set $l (local.get $maxLen))
    (block $hinted (loop $hint
      (br_if $hinted (i32.le_u (local.get $l) (local.get $P)))
      (local.set $d (i64.load (i32.add (global.get $COUNT64) (i32.shl (local.get $l) (i32.const 3)))))
      (if (i64.ne (local.get $d) (i64.const 0)) (then
        (local.set $lo (i32.wrap_i64 (i64.shr_u (i64.load (i32.add (global.get $FIRST64) (i32.shl (local.get $l) (i32.const 3))))
          (i64.extend_i32_u (i32.sub (local.get $l) (local.get $P))))))
        (local.set $hi (i32.wrap_i64 (i64.shr_u
          (i64.sub (i64.add (i64.load (i32.add (global.get $FIRST64) (i32.shl (local.get $l) (i32.const 3)))) (local.get $d)) (i64.const 1))
          (i64.extend_i32_u (i32.sub (local.get $l) (local.get $P))))))
        (block $rangeDone (loop $range
          (br_if $rangeDone (i32.gt_u (local.get $lo) (local.get $hi)))
          (local.set $a (i32.add (global.get $FAST) (i32.shl (local.get $lo) (i32.const 2))))
          (local.set $e (i32.load (local.get $a)))
          ;; a short code there: not a prefix code
          (if (i32.and (i32.ne (local.get $e) (i32.const 0)) (i32.le_u (i32.and (local.get $e) (i32.const 63)) (local.get $P)))
            (then (return (i32.const 1))))
          (i32.store (local.get $a) (local.get $l))
          (local.set $lo (i32.add (local.get $lo) (i32.const 1)))
          (br $range)))))
      (local.set $l (i32.sub (local.get $l) (i32.const 1)))
      (br $hint)))

    (local.set $pmask (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $P))) (i64.const 1)))
    (block $end (loop $code
      (local.set $pos (i32.sub (i32.shl (local.get $bp) (i32.const 3)) (local.get $accBits)))
      (br_if $end (i32.ge_u (local.get $pos) (local.get $nBits)))
      (if (i32.lt_u (local.get $accBits) (local.get $maxLen)) (then
        (block $full (loop $refill
          (br_if $full (i32.gt_u (local.get $accBits) (i32.const 56)))
          (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.const 8))
            (i64.load8_u (i32.add (local.get $bitsAt) (local.get $bp)))))
          (local.set $bp (i32.add (local.get $bp) (i32.const 1)))
          (local.set $accBits (i32.add (local.get $accBits) (i32.const 8)))
          (br $refill)))))
      (local.set $e (i32.load (i32.add (global.get $FAST) (i32.shl
        (i32.wrap_i64 (i64.and (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $accBits) (local.get $P)))) (local.get $pmask)))
        (i32.const 2)))))
      (local.set $len (i32.and (local.get $e) (i32.const 63)))
      (if (i32.eqz (local.get $len)) (then (return (i32.const 1))))
      (if (i32.le_u (local.get $len) (local.get $P))
        (then (local.set $sym (i32.shr_u (local.get $e) (i32.const 6))))
        (else
          (block $found (loop $try
            (if (i32.gt_u (local.get $len) (local.get $maxLen)) (then (return (i32.const 1))))
            (local.set $d (i64.sub
              (i64.and (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $accBits) (local.get $len))))
                (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $len))) (i64.const 1)))
              (i64.load (i32.add (global.get $FIRST64) (i32.shl (local.get $len) (i32.const 3))))))
            (if (i64.lt_u (local.get $d) (i64.load (i32.add (global.get $COUNT64) (i32.shl (local.get $len) (i32.const 3)))))
              (then
                (local.set $sym (i32.load (i32.add (global.get $SORTED) (i32.shl
                  (i32.add (i32.load (i32.add (global.get $SSTART) (i32.shl (local.get $len) (i32.const 2)))) (i32.wrap_i64 (local.get $d)))
                  (i32.const 2)))))
                (br $found)))
            (local.set $len (i32.add (local.get $len) (i32.const 1)))
            (br $try)))))
      (if (i32.gt_u (i32.add (local.get $pos) (local.get $len)) (local.get $nBits)) (then (return (i32.const 1))))
      (local.set $accBits (i32.sub (local.get $accBits) (local.get $len)))
      (if (i32.eq (local.get $sym) (local.get $iM))
        (then
          (if (i32.gt_u (i32.add (i32.add (local.get $pos) (local.get $len)) (i32.const 8)) (local.get $nBits)) (then (return (i32.const 1))))
          (block $got (loop $more
            (br_if $got (i32.ge_u (local.get $accBits) (i32.const 8)))
            (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.const 8))
              (i64.load8_u (i32.add (local.get $bitsAt) (local.get $bp)))))
            (local.set $bp (i32.add (local.get $bp) (i32.const 1)))
            (local.set $accBits (i32.add (local.get $accBits) (i32.const 8)))
            (br $more)))
          (local.set $accBits (i32.sub (local.get $accBits) (i32.const 8)))
          (local.set $run (i32.and (i32.wrap_i64 (i64.shr_u (local.get $acc) (i64.extend_i32_u (local.get $accBits)))) (i32.const 255)))
          (if (i32.eqz (local.get $o)) (then (return (i32.const 1))))
          (if (i32.gt_u (i32.add (local.get $o) (local.get $run)) (local.get $nRaw)) (then (return (i32.const 1))))
          (local.set $oa (i32.add (global.get $OUT) (i32.shl (local.get $o) (i32.const 1))))
          (local.set $prev (i32.load16_u (i32.sub (local.get $oa) (i32.const 2))))
          (local.set $oe (i32.add (local.get $oa) (i32.shl (local.get $run) (i32.const 1))))
          (block $filledRun (loop $rep
            (br_if $filledRun (i32.ge_u (local.get $oa) (local.get $oe)))
            (i32.store16 (local.get $oa) (local.get $prev))
            (local.set $oa (i32.add (local.get $oa) (i32.const 2)))
            (br $rep)))
          (local.set $o (i32.add (local.get $o) (local.get $run))))
        (else
          (if (i32.ge_u (local.get $o) (local.get $nRaw)) (then (return (i32.const 1))))
          (i32.store16 (i32.add (global.get $OUT) (i32.shl (local.get $o) (i32.const 1))) (local.get $sym))
          (local.set $o (i32.add (local.get $o) (i32.const 1)))))
      (br $code)))
    (i32.ne (local.get $o) (local.get $nRaw)))

  ;; 14-bit inverse lifting of (buf[i], buf[j]) (byte addresses), signed
  (func $pair14 (param $i i32) (param $j i32)
    (local $h i32) (local $a i32)
    (local.set $h (i32.load16_s (local.get $j)))
    (local.set $a (i32.add (i32.add (i32.load16_s (local.get $i)) (i32.and (local.get $h) (i32.const 1))) (i32.shr_s (local.get $h) (i32.const 1))))
    (i32.store16 (local.get $i) (local.get $a))
    (i32.store16 (local.get $j) (i32.sub (local.get $a) (local.get $h))))

  ;; 16-bit inverse lifting of (buf[i], buf[j]), modular
  (func $pair16 (param $i i32) (param $j i32)
    (local $m i32) (local $d i32) (local $b i32)
    (local.set $m (i32.load16_u (local.get $i)))
    (local.set $d (i32.load16_u (local.get $j)))
    (local.set $b (i32.and (i32.sub (local.get $m) (i32.shr_u (local.get $d) (i32.const 1))) (i32.const 0xffff)))
    (i32.store16 (local.get $i) (i32.sub (i32.add (local.get $d) (local.get $b)) (i32.const 0x8000)))
    (i32.store16 (local.get $j) (local.get $b)))

  ;; Inverse wavelet of an nx × ny array of words at word index base, strides ox and oy (in words): wavelet2Decode.
  (func (export "wav") (param $base i32) (param $nx i32) (param $ox i32) (param $ny i32) (param $oy i32) (param $w14 i32)
    (local $n i32) (local $p i32) (local $p2 i32) (local $ey i32) (local $oy1 i32) (local $oy2 i32) (local $ox1 i32) (local $ox2 i32)
    (local $py i32) (local $px i32) (local $ex i32) (local $p01 i32) (local $p10 i32) (local $p11 i32)
    (local $h0 i32) (local $a0 i32) (local $b0 i32) (local $h1 i32) (local $a1 i32) (local $b1 i32)
    (local $ha i32) (local $aa i32) (local $hb i32) (local $ab i32) (local $m i32) (local $d i32) (local $bb0 i32) (local $bb1 i32)
    (local.set $n (select (local.get $ny) (local.get $nx) (i32.gt_s (local.get $nx) (local.get $ny))))
    (local.set $p (i32.const 1))
    (block $b (loop $l (br_if $b (i32.gt_s (local.get $p) (local.get $n))) (local.set $p (i32.shl (local.get $p) (i32.const 1))) (br $l)))
    (local.set $p (i32.shr_s (local.get $p) (i32.const 1)))
    (local.set $p2 (local.get $p))
    (local.set $p (i32.shr_s (local.get $p) (i32.const 1)))
    ;; byte addresses and byte strides from here on
    (local.set $base (i32.add (global.get $OUT) (i32.shl (local.get $base) (i32.const 1))))
    (local.set $ox (i32.shl (local.get $ox) (i32.const 1)))
    (local.set $oy (i32.shl (local.get $oy) (i32.const 1)))
    (block $levels (loop $level
      (br_if $levels (i32.lt_s (local.get $p) (i32.const 1)))
      (local.set $ey (i32.add (local.get $base) (i32.mul (local.get $oy) (i32.sub (local.get $ny) (local.get $p2)))))
      (local.set $oy1 (i32.mul (local.get $oy) (local.get $p)))
      (local.set $oy2 (i32.mul (local.get $oy) (local.get $p2)))
      (local.set $ox1 (i32.mul (local.get $ox) (local.get $p)))
      (local.set $ox2 (i32.mul (local.get $ox) (local.get $p2)))
      (local.set $py (local.get $base))
      (block $rows (loop $row
        (br_if $rows (i32.gt_s (local.get $py) (local.get $ey)))
        (local.set $ex (i32.add (local.get $py) (i32.mul (local.get $ox) (i32.sub (local.get $nx) (local.get $p2)))))
        (local.set $px (local.get $py))
        (block $cols (loop $col
          (br_if $cols (i32.gt_s (local.get $px) (local.get $ex)))
          (local.set $p01 (i32.add (local.get $px) (local.get $ox1)))
          (local.set $p10 (i32.add (local.get $px) (local.get $oy1)))
          (local.set $p11 (i32.add (local.get $p10) (local.get $ox1)))
          (if (local.get $w14)
            (then
              (local.set $h0 (i32.load16_s (local.get $p10)))
              (local.set $a0 (i32.add (i32.add (i32.load16_s (local.get $px)) (i32.and (local.get $h0) (i32.const 1))) (i32.shr_s (local.get $h0) (i32.const 1))))
              (local.set $b0 (i32.sub (local.get $a0) (local.get $h0)))
              (local.set $h1 (i32.load16_s (local.get $p11)))
              (local.set $a1 (i32.add (i32.add (i32.load16_s (local.get $p01)) (i32.and (local.get $h1) (i32.const 1))) (i32.shr_s (local.get $h1) (i32.const 1))))
              (local.set $b1 (i32.sub (local.get $a1) (local.get $h1)))
              (local.set $ha (i32.extend16_s (local.get $a1)))
              (local.set $aa (i32.add (i32.add (i32.extend16_s (local.get $a0)) (i32.and (local.get $ha) (i32.const 1))) (i32.shr_s (local.get $ha) (i32.const 1))))
              (i32.store16 (local.get $px) (local.get $aa))
              (i32.store16 (local.get $p01) (i32.sub (local.get $aa) (local.get $ha)))
              (local.set $hb (i32.extend16_s (local.get $b1)))
              (local.set $ab (i32.add (i32.add (i32.extend16_s (local.get $b0)) (i32.and (local.get $hb) (i32.const 1))) (i32.shr_s (local.get $hb) (i32.const 1))))
              (i32.store16 (local.get $p10) (local.get $ab))
              (i32.store16 (local.get $p11) (i32.sub (local.get $ab) (local.get $hb))))
            (else
              (local.set $m (i32.load16_u (local.get $px)))
              (local.set $d (i32.load16_u (local.get $p10)))
              (local.set $b0 (i32.and (i32.sub (local.get $m) (i32.shr_u (local.get $d) (i32.const 1))) (i32.const 0xffff)))
              (local.set $a0 (i32.and (i32.sub (i32.add (local.get $d) (local.get $b0)) (i32.const 0x8000)) (i32.const 0xffff)))
              (local.set $m (i32.load16_u (local.get $p01)))
              (local.set $d (i32.load16_u (local.get $p11)))
              (local.set $b1 (i32.and (i32.sub (local.get $m) (i32.shr_u (local.get $d) (i32.const 1))) (i32.const 0xffff)))
              (local.set $a1 (i32.and (i32.sub (i32.add (local.get $d) (local.get $b1)) (i32.const 0x8000)) (i32.const 0xffff)))
              (local.set $bb0 (i32.and (i32.sub (local.get $a0) (i32.shr_u (local.get $a1) (i32.const 1))) (i32.const 0xffff)))
              (i32.store16 (local.get $px) (i32.sub (i32.add (local.get $a1) (local.get $bb0)) (i32.const 0x8000)))
              (i32.store16 (local.get $p01) (local.get $bb0))
              (local.set $bb1 (i32.and (i32.sub (local.get $b0) (i32.shr_u (local.get $b1) (i32.const 1))) (i32.const 0xffff)))
              (i32.store16 (local.get $p10) (i32.sub (i32.add (local.get $b1) (local.get $bb1)) (i32.const 0x8000)))
              (i32.store16 (local.get $p11) (local.get $bb1))))
          (local.set $px (i32.add (local.get $px) (local.get $ox2)))
          (br $col)))
        (if (i32.and (local.get $nx) (local.get $p)) (then
          (if (local.get $w14)
            (then (call $pair14 (local.get $px) (i32.add (local.get $px) (local.get $oy1))))
            (else (call $pair16 (local.get $px) (i32.add (local.get $px) (local.get $oy1)))))))
        (local.set $py (i32.add (local.get $py) (local.get $oy2)))
        (br $row)))
      (if (i32.and (local.get $ny) (local.get $p)) (then
        (local.set $ex (i32.add (local.get $py) (i32.mul (local.get $ox) (i32.sub (local.get $nx) (local.get $p2)))))
        (local.set $px (local.get $py))
        (block $lastDone (loop $last
          (br_if $lastDone (i32.gt_s (local.get $px) (local.get $ex)))
          (if (local.get $w14)
            (then (call $pair14 (local.get $px) (i32.add (local.get $px) (local.get $ox1))))
            (else (call $pair16 (local.get $px) (i32.add (local.get $px) (local.get $ox1)))))
          (local.set $px (i32.add (local.get $px) (local.get $ox2)))
          (br $last)))))
      (local.set $p2 (local.get $p))
      (local.set $p (i32.shr_s (local.get $p) (i32.const 1)))
      (br $level))))
)
