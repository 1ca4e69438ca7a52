/**
 * A heightfield file and its sidecar move together: a fault is injected at every file-system step
 * of a pair write — once as a failing step whose clean-up still runs (disk full), once as a crash after which nothing
 * more runs (a kill) — and a reader must then see the old pair or the new pair: never a payload without its sidecar,
 * never one read with default settings, never a mix; the next write leaves exactly the two files.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { encodeR16 } from '../src/api/formats.js';
import { withFaults, withFaultsAsync } from '../src/io/fs-ops.js';
import { cli, tempDir, testRandom } from './helpers.js';

const root = tempDir('hb-pair-');
const N = 32;
const rnd = testRandom(3);
const version = (k: number) => Uint16Array.from({ length: N * N }, () => Math.floor(rnd() * 65536) ^ k);
const OLD = version(1);
const NEW = version(2);
const LATER = version(3);
const field = (q: Uint16Array) => codeHeightfield(domainGrid(N), q);

type Seen = 'old' | 'new' | 'later' | 'foreign' | 'absent' | 'refused';

function seen(path: string, foreign?: Uint16Array): Seen {
  let r;
  try {
    r = readHeightfieldFile(path);
  } catch (e) {
    return /no such file/.test((e as Error).message) ? 'absent' : 'refused';
  }
  const q = r.field.kind === 'codes' ? Array.from(r.field.code_px) : [];
  if (r.sidecar === null) return foreign && q.join() === Array.from(foreign).join() ? 'foreign' : 'refused';
  if (q.join() === Array.from(OLD).join()) return 'old';
  if (q.join() === Array.from(NEW).join()) return 'new';
  if (q.join() === Array.from(LATER).join()) return 'later';
  return 'refused';
}

const scenarios = [
  { name: 'a new pair into an empty folder', ext: 'r16', before: 'none' },
  { name: 'a new pair over an old pair', ext: 'r16', before: 'pair' },
  { name: 'a PNG pair over an old pair', ext: 'png', before: 'pair' },
  { name: 'a new pair over a foreign file without sidecar', ext: 'r16', before: 'foreign' },
] as const;

describe('file + sidecar pairs under injected faults', () => {
  for (const sc of scenarios) {
    for (const mode of ['error', 'crash'] as const) {
      it(`${sc.name}, ${mode} at every step`, () => {
        const base = join(root, `${sc.ext}-${sc.before}-${mode}`);
        const prepare = (k: number) => {
          const dir = join(base, `k${k}`);
          mkdirSync(dir, { recursive: true });
          const path = join(dir, `map.${sc.ext}`);
          const foreign = version(9);
          if (sc.before === 'pair') writeHeightfieldFile(path, field(OLD));
          if (sc.before === 'foreign') writeFileSync(path, encodeR16(foreign));
          return { dir, path, foreign };
        };
        // A dry run counts the steps.
        const dry = prepare(-1);
        const steps = withFaults(null, () => writeHeightfieldFile(dry.path, field(NEW))).steps;
        expect(steps.map((s) => s.kind)).toEqual(['mkdir', 'write', 'write', 'rename', 'rename', 'fsync-dir']);
        const allowedBefore: Seen[] = sc.before === 'pair' ? ['old'] : sc.before === 'foreign' ? ['foreign'] : ['absent'];
        for (let k = 0; k < steps.length; k++) {
          const { dir, path, foreign } = prepare(k);
          const r = withFaults({ at: k, mode }, () => writeHeightfieldFile(path, field(NEW)));
          expect(r.fired, `step ${k}`).toBe(true);
          expect(r.error, `step ${k}`).toBeDefined();
          const s = seen(path, foreign);
          expect([...allowedBefore, 'new'], `step ${k} (${steps[k].kind}) → ${s}`).toContain(s);
          // The commit point is the sidecar's rename (step 3): before it the old state, after it the new pair.
          expect(s, `step ${k}`).toBe(k <= 3 ? allowedBefore[0] : 'new');
          // A payload under the real name always has its own sidecar beside it (or the old one, still matching).
          if (existsSync(path) && sc.before === 'none') expect(existsSync(`${path}.json`), `step ${k}`).toBe(true);
          const names = readdirSync(dir).sort();
          if (mode === 'error' && k <= 3)
            expect(names, `step ${k}: clean-up ran`).toEqual(
              sc.before === 'none' ? [] : sc.before === 'foreign' ? ['map.r16'] : [`map.${sc.ext}`, `map.${sc.ext}.json`],
            );
          // The next write finishes or clears what the fault left, and leaves exactly the pair.
          writeHeightfieldFile(path, field(LATER));
          expect(seen(path)).toBe('later');
          expect(readdirSync(dir).sort()).toEqual([`map.${sc.ext}`, `map.${sc.ext}.json`]);
        }
      });
    }
  }

  it('a crash after the commit point is read through the pending payload, with a note', () => {
    const dir = join(root, 'note');
    const path = join(dir, 'map.r16');
    writeHeightfieldFile(path, field(OLD));
    withFaults({ at: 4, mode: 'crash' }, () => writeHeightfieldFile(path, field(NEW)));
    const r = readHeightfieldFile(path);
    expect(r.notes.join()).toMatch(/payload read from \.map\.r16\.pending-[0-9a-f]{16}: a write of this pair was interrupted after its sidecar was committed/);
    expect(r.field.kind === 'codes' && Array.from(r.field.code_px)).toEqual(Array.from(NEW));
    // The file under the real name is not what was verified: no digest is claimed for it.
    expect(r.verifiedSha256).toBeUndefined();
  });

  it('verifiedSha256 is the SHA-256 of the file itself when its sidecar was checked, absent without a sidecar', () => {
    const dir = join(root, 'digest');
    const path = join(dir, 'map.r16');
    writeHeightfieldFile(path, field(OLD));
    expect(readHeightfieldFile(path).verifiedSha256).toBe(createHash('sha256').update(readFileSync(path)).digest('hex'));
    const bare = join(dir, 'bare.r16');
    writeFileSync(bare, readFileSync(path));
    const g = domainGrid(N);
    const settings = {
      size: { width: N, height: N },
      range: { min: 0, max: 1 },
      extent: { xmin: g.xmin, ymin: g.ymin, sizeX: g.sizeX, sizeY: g.sizeY },
      convention: g.convention,
      rowDirection: g.rowDirection,
    };
    const b = readHeightfieldFile(bare, settings);
    expect(b.field.kind === 'codes' && Array.from(b.field.code_px)).toEqual(Array.from(OLD));
    expect(b.verifiedSha256).toBeUndefined();
  });

  it('the CLI reports a full disk as exit 2 with the path and the cause, and leaves no file behind', async () => {
    const dir = join(root, 'cli');
    mkdirSync(dir, { recursive: true });
    const src = join(dir, 'in.r16');
    writeHeightfieldFile(src, field(OLD));
    const out = join(dir, 'out.png');
    const r = await withFaultsAsync({ at: 1, mode: 'error' }, () => cli('convert', src, out));
    expect(r.result?.code).toBe(2);
    expect(r.result?.err).toMatch(/^heightbench: .*\.out\.png\.pending-[0-9a-f]{16}: no space left on the device \(ENOSPC, write\)\n$/);
    expect(readdirSync(dir).sort()).toEqual(['in.r16', 'in.r16.json']);
  });
});
