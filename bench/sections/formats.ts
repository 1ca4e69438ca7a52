/** Issue 2 targets: R16 4096² read → float → write ≤ 150 ms; PNG16 4096² decode within 2× of ImageMagick. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFieldR16, encodeFieldR16 } from '../../src/core/encoding.js';
import { domainGrid } from '../../src/core/grid.js';
import { codeHeightfield, floatHeightfield, heightsOf } from '../../src/core/heightfield.js';
import { writeFileAtomic } from '../../src/io/atomic.js';
import { readHeightfieldFile, writeHeightfieldFile } from '../../src/io/heightfield-file.js';
import { decodePng16 } from '../../src/io/png16.js';
import { decodeR16, encodeR16 } from '../../src/io/r16.js';
import { BENCH_DIR, report, syntheticCodes, timeMedian, type BenchRow } from '../util.js';

const N = 4096;
const rows: BenchRow[] = [];
const codes = syntheticCodes(N);
const r16 = join(BENCH_DIR, 'map4096.r16');
writeFileSync(r16, encodeR16(codes));

const height = new Float32Array(N * N);
const out = new Uint16Array(N * N);
const cold = timeMedian(
  () => {
    const q = decodeR16(readFileSync(r16), N, N, 'le');
    decodeFieldR16(q, height);
    encodeFieldR16(height, out);
    writeFileAtomic(join(BENCH_DIR, 'map4096-out.r16'), encodeR16(out));
  },
  1,
  0,
);
const plain = timeMedian(() => {
  const q = decodeR16(readFileSync(r16), N, N, 'le');
  decodeFieldR16(q, height);
  encodeFieldR16(height, out);
  writeFileAtomic(join(BENCH_DIR, 'map4096-out.r16'), encodeR16(out));
});
rows.push({ name: 'R16 4096² read → float32 field → R16 write (raw files, warm)', ms: plain, target: '≤ 150 ms' });
rows.push({ name: 'same, first call in a fresh process (cold JIT)', ms: cold });

const sc = join(BENCH_DIR, 'map4096-sc.r16');
writeHeightfieldFile(sc, codeHeightfield(domainGrid(N), codes));
const withSidecar = timeMedian(() => {
  const f = readHeightfieldFile(sc).field;
  writeHeightfieldFile(join(BENCH_DIR, 'map4096-sc-out.r16'), floatHeightfield(f.grid, heightsOf(f)));
});
rows.push({ name: 'same, with sidecars (SHA-256 verify on read, hash on write)', ms: withSidecar });

// PNG16 decode vs ImageMagick decoding the same file into raw. The file is written by ImageMagick (adaptive filters).
const png = join(BENCH_DIR, 'map4096-im.png');
if (!existsSync(png)) {
  execFileSync('/usr/bin/convert', [
    '-size',
    `${N}x${N}`,
    '-depth',
    '16',
    '-endian',
    'LSB',
    `gray:${r16}`,
    '-define',
    'png:bit-depth=16',
    '-define',
    'png:color-type=0',
    png,
  ]);
}
const pngBytes = readFileSync(png);
const ours = timeMedian(
  () => {
    const d = decodePng16(readFileSync(png));
    if (d.codes[12345] !== codes[12345]) throw new Error('decode mismatch');
  },
  3,
  1,
);
const im = timeMedian(
  () => {
    execFileSync('/usr/bin/convert', [png, '-depth', '16', '-endian', 'LSB', `gray:${join(BENCH_DIR, 'im-decoded.gray')}`]);
  },
  3,
  1,
);
rows.push({
  name: `PNG16 4096² decode (${(pngBytes.length / 1e6).toFixed(1)} MB file written by ImageMagick)`,
  ms: ours,
  peer: { name: 'ImageMagick convert png → gray raw', ms: im },
  target: 'within 2× of the peer',
});
report('formats', rows);
