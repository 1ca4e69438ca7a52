#!/usr/bin/env node
/**
 * docs/cli.md's reference of every command, argument and flag, written from the commander parser itself (the built
 * dist/cli/main.js: cliProgram), between the marker comments below; the prose around them is kept as written.
 *
 *   node scripts/cli-reference.mjs               rewrite the reference in docs/cli.md
 *   node scripts/cli-reference.mjs --check [MD]  exit 1 naming the first differing line when MD (default docs/cli.md)
 *                                                does not hold what the parser says (test/cli-reference.test.ts)
 *   node scripts/cli-reference.mjs --print       print the reference alone
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BEGIN = '<!-- cli-reference: begin (written by scripts/cli-reference.mjs from the parser; do not edit) -->';
export const END = '<!-- cli-reference: end -->';

/** One table cell: a single line, the pipe escaped (GitHub tables split on it, even inside code). */
const cell = (s) =>
  String(s)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();

function optionText(o) {
  let text = o.description ?? '';
  if (o.argChoices) text += ` (one of: ${o.argChoices.join(', ')})`;
  const dflt = o.defaultValueDescription ?? (o.defaultValue === undefined || o.defaultValue === false ? undefined : JSON.stringify(o.defaultValue));
  if (dflt !== undefined) text += ` (default: ${dflt})`;
  return text;
}

function argumentText(a) {
  let text = a.description ?? '';
  if (a.argChoices) text += ` (one of: ${a.argChoices.join(', ')})`;
  if (a.defaultValue !== undefined) text += ` (default: ${a.defaultValueDescription ?? JSON.stringify(a.defaultValue)})`;
  return text;
}

function argumentName(a) {
  const n = `${a.name()}${a.variadic ? '...' : ''}`;
  return a.required ? `<${n}>` : `[${n}]`;
}

function commandSection(cmd, path, out) {
  const full = [...path, cmd.name()].join(' ');
  const aliases = cmd.aliases();
  out.push(`### \`${full} ${cmd.usage()}\``, '');
  if (cmd.description()) out.push(cell(cmd.description()), '');
  if (aliases.length) out.push(`Also: ${aliases.map((a) => `\`${[...path, a].join(' ')}\``).join(', ')}.`, '');
  const args = cmd.registeredArguments ?? [];
  if (args.length) {
    out.push('| argument | |', '|---|---|');
    for (const a of args) out.push(`| \`${cell(argumentName(a))}\` | ${cell(argumentText(a))} |`);
    out.push('');
  }
  const options = cmd.options.filter((o) => !o.hidden);
  if (options.length) {
    out.push('| option | |', '|---|---|');
    for (const o of options) out.push(`| \`${cell(o.flags)}\` | ${cell(optionText(o))} |`);
    out.push('');
  }
  for (const sub of cmd.commands) commandSection(sub, [...path, cmd.name()], out);
}

/** The reference, markers included, for a commander program. */
export function renderReference(program) {
  const out = [BEGIN, '', '## Every command, argument and flag', ''];
  out.push(
    `Generated from the parser (\`node scripts/cli-reference.mjs\`; \`test/cli-reference.test.ts\` fails when this differs). Every command also takes \`-h, --help\`.`,
    '',
  );
  out.push('### Global options', '', '| option | |', '|---|---|');
  for (const o of program.options.filter((x) => !x.hidden)) out.push(`| \`${cell(o.flags)}\` | ${cell(optionText(o))} |`);
  out.push('');
  for (const cmd of program.commands) commandSection(cmd, [program.name()], out);
  while (out[out.length - 1] === '') out.pop();
  out.push('', END);
  return out.join('\n') + '\n';
}

/** `doc` with its reference replaced (appended at the end when it has no markers yet). */
export function withReference(doc, reference) {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b < 0 || e < 0) return doc.replace(/\n*$/, '\n\n') + reference;
  return doc.slice(0, b) + reference + doc.slice(e + END.length).replace(/^\n/, '');
}

async function main(argv) {
  const { cliProgram } = await import(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href);
  const reference = renderReference(await cliProgram());
  if (argv[0] === '--print') {
    process.stdout.write(reference);
    return 0;
  }
  const file = argv[0] === '--check' && argv[1] ? resolve(argv[1]) : join(ROOT, 'docs', 'cli.md');
  const doc = readFileSync(file, 'utf8');
  const want = withReference(doc, reference);
  if (argv[0] === '--check') {
    if (want === doc) return 0;
    const a = doc.split('\n');
    const w = want.split('\n');
    let k = 0;
    while (k < a.length && a[k] === w[k]) k++;
    process.stderr.write(
      `${file}: the CLI reference differs from the parser at line ${k + 1}:\n  in the file:   ${a[k] ?? '(end)'}\n  from the parser: ${w[k] ?? '(end)'}\nrun node scripts/cli-reference.mjs (after node scripts/build-dist.mjs)\n`,
    );
    return 1;
  }
  if (want !== doc) writeFileSync(file, want);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(await main(process.argv.slice(2)));
