/**
 * An outside reference shared through DVC: imported with --dvc into a project, pushed to a remote (a folder here, as
 * S3, SSH or HTTP storage would be), pulled by a fresh clone, and checked there — the real DVC and git, no stand-ins.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHeightfieldFile } from '../src/index.js';
import { withRowDirection } from '../src/core/heightfield.js';
import { cli, tempDir } from './helpers.js';

const venvBin = join(process.cwd(), '.venv', 'bin');
const env = {
  ...process.env,
  PATH: `${venvBin}:${process.env.PATH}`,
  DVC_NO_ANALYTICS: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

function run(cwd: string, cmd: string, ...args: string[]): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} in ${cwd} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

describe('an imported reference through a DVC remote', () => {
  it('dvc push → fresh clone → dvc pull → check gives the same verdict', async () => {
    expect(existsSync(join(venvBin, 'dvc'))).toBe(true); // installed by make setup (requirements.txt)
    const w = tempDir('hb-dvc-remote-');
    const gen = join(w, 'gen');
    expect((await cli('run', 'teaching-512', '--size', '128', '--out', gen)).code).toBe(0);
    const f = withRowDirection(readHeightfieldFile(join(gen, 'final.r16')).field, 'row0-at-ymax');
    const proj = join(w, 'proj');
    run(w, 'git', 'init', '-q', proj);
    // Outside a DVC project --dvc is refused before anything is written, quoting DVC's own reason.
    const capture = join(proj, 'captures', 'capture.r16');
    mkdirSync(join(proj, 'captures'));
    writeFileSync(capture, Buffer.from(f.kind === 'codes' ? f.code_px.buffer : new ArrayBuffer(0)));
    const flags = [
      '--stage',
      'final',
      '--range',
      '-500,500',
      '--extent',
      '-1024,-1024,2048',
      '--row-direction',
      'row0-at-ymax',
      '--out',
      join(proj, 'ext-ref'),
    ];
    const refused = await cli('import', capture, ...flags, '--dvc');
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/DVC says: you are not inside of a DVC repository/);
    expect(readdirSync(proj).sort()).toEqual(['.git', 'captures']);
    run(proj, 'dvc', 'init', '-q');
    // A capture outside the project cannot be tracked: refused, nothing written.
    const outside = join(w, 'outside.r16');
    copyFileSync(capture, outside);
    const far = await cli('import', outside, ...flags, '--dvc');
    expect(far.code).toBe(2);
    expect(far.err).toMatch(/lies outside the DVC project/);
    expect(existsSync(join(proj, 'ext-ref'))).toBe(false);
    run(proj, 'dvc', 'remote', 'add', '-d', 'team', join(w, 'remote'));
    const imp = await cli(
      'import',
      capture,
      '--stage',
      'final',
      '--range',
      '-500,500',
      '--extent',
      '-1024,-1024,2048',
      '--row-direction',
      'row0-at-ymax',
      '--out',
      join(proj, 'ext-ref'),
      '--dvc',
    );
    expect(imp.err).toBe('');
    expect(imp.code).toBe(0);
    expect(existsSync(join(proj, 'ext-ref.dvc'))).toBe(true);
    // The capture itself is tracked beside the run, and imports.json names it relative to the repository.
    expect(existsSync(join(proj, 'captures', 'capture.r16.dvc'))).toBe(true);
    const rec = JSON.parse(readFileSync(join(proj, 'ext-ref', 'imports.json'), 'utf8')).imports[0];
    expect([rec.file, rec.path, rec.pathFrom]).toEqual(['capture.r16', 'captures/capture.r16', 'repository']);
    run(proj, 'git', 'add', '-A');
    run(proj, 'git', 'commit', '-qm', 'outside reference');
    run(proj, 'dvc', 'push', '-q');

    const clone = join(w, 'clone');
    run(w, 'git', 'clone', '-q', proj, clone);
    expect(existsSync(join(clone, 'ext-ref'))).toBe(false);
    expect(existsSync(join(clone, 'captures', 'capture.r16'))).toBe(false);
    run(clone, 'dvc', 'pull', '-q');
    expect(readFileSync(join(clone, 'captures', 'capture.r16'))).toEqual(readFileSync(capture));
    const there = await cli('check', gen, join(clone, 'ext-ref'), '--strict', '--min-exact', '100');
    expect(there.code).toBe(0);
    const here = await cli('check', gen, join(proj, 'ext-ref'), '--strict', '--min-exact', '100');
    expect(here.out).toBe(there.out.split(join(clone, 'ext-ref')).join(join(proj, 'ext-ref')));
  }, 120_000);
});
