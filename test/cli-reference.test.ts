/**
 * docs/cli.md's reference is what the parser says: `scripts/cli-reference.mjs --check` (the built parser) finds no
 * difference; every command of the source's parser has its section, with each of its arguments and flags; and a
 * reference one flag short, or with prose edited inside the markers, is refused with the line named.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { cliProgram } from '../src/cli/main.js';

const root = resolve(import.meta.dirname, '..');
const doc = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'hb-cli-ref-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const check = (file?: string) =>
  spawnSync(process.execPath, [join(root, 'scripts', 'cli-reference.mjs'), '--check', ...(file ? [file] : [])], { encoding: 'utf8' });

/** Every command under `cmd` with its full name ("heightbench sweep gather"). */
function commands(cmd: Command, path: string[] = []): { name: string; cmd: Command }[] {
  return cmd.commands.flatMap((c) => {
    const name = [...path, cmd.name(), c.name()];
    return [{ name: name.join(' '), cmd: c }, ...commands(c, name.slice(0, -1))];
  });
}

describe('docs/cli.md, generated from the parser', () => {
  const begin = doc.indexOf('<!-- cli-reference: begin');
  const end = doc.indexOf('<!-- cli-reference: end -->');
  const reference = doc.slice(begin, end);

  it('holds what the built parser says', () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('has a section for every command of the source, with each argument and flag', async () => {
    expect(begin).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(begin);
    // The hand-written part before the markers is kept.
    expect(doc.slice(0, begin)).toContain('### Exit status');
    const program = await cliProgram();
    const all = commands(program);
    expect(all.map((c) => c.name)).toEqual(expect.arrayContaining(['heightbench info', 'heightbench convert', 'heightbench check', 'heightbench init']));
    const sections = reference.split(/\n(?=### `)/);
    for (const { name, cmd } of all) {
      const section = sections.find((s) => s.startsWith(`### \`${name} `));
      expect(section, `a section for ${name}`).toBeDefined();
      for (const a of cmd.registeredArguments) expect(section, `${name}: argument ${a.name()}`).toContain(a.name());
      for (const o of cmd.options.filter((x) => !x.hidden)) expect(section, `${name}: ${o.flags}`).toContain(`\`${o.flags.replace(/\|/g, '\\|')}\``);
    }
    expect(sections.filter((s) => s.startsWith('### `heightbench ')).length).toBe(all.length);
  });

  it('refuses a reference one flag short, naming the line', () => {
    const line = doc.split('\n').findIndex((l, k) => k > doc.slice(0, begin).split('\n').length && l.startsWith('| `--json` |'));
    expect(line).toBeGreaterThan(0);
    const short = doc.split('\n').filter((_, k) => k !== line);
    writeFileSync(join(tmp, 'short.md'), short.join('\n'));
    const r = check(join(tmp, 'short.md'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`at line ${line + 1}:`);
    expect(r.stderr).toContain('`--json`');
  });

  it('refuses prose edited inside the markers, and keeps prose outside them', () => {
    writeFileSync(join(tmp, 'edited.md'), doc.replace('## Every command, argument and flag', '## Every command'));
    expect(check(join(tmp, 'edited.md')).status).toBe(1);
    writeFileSync(join(tmp, 'outside.md'), doc.replace('### Exit status', '### Exit status, as documented'));
    expect(check(join(tmp, 'outside.md')).status).toBe(0);
  });
});
