// What the notebooks' type check (scripts/check-notebooks.mjs) reads, as one SHA-256: the notebook sources, every
// declaration file under dist/ (what the cells import), package-lock.json (tslab, TypeScript, @types) and the checker.
// scripts/run-notebooks.mjs records a pass under this key and does not repeat it while the key is unchanged.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The key of the type check's inputs in the project at `root`. */
export function typecheckKey(root) {
  const h = createHash('sha256');
  const files = [
    ...readdirSync(join(root, 'notebooks'))
      .filter((f) => f.endsWith('.nb.ts'))
      .sort()
      .map((f) => join('notebooks', f)),
    ...declarationFiles(join(root, 'dist')).map((f) => relative(root, f)),
    'package-lock.json',
    'scripts/check-notebooks.mjs',
  ];
  for (const f of files)
    h.update(`${f}\0`).update(
      createHash('sha256')
        .update(readFileSync(join(root, f)))
        .digest(),
    );
  return h.digest('hex');
}

/** Every .d.ts under `dir`, sorted by path. */
function declarationFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...declarationFiles(p));
    else if (e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}
