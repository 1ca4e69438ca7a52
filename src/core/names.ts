/**
 * Names are names: the one check for every user- or file-supplied name that becomes part of a path or a lookup key
 * (run names of params.yaml, stage names, request ids, world names, branch names, report folder names), and the one
 * check that a destination lies inside the folder it belongs to.
 *
 * Inputs: a kind ("run", "request", …) used in the message, and the value. Output: the value, unchanged, or a
 * UsageError (exit 2) naming the kind, the value and the rule.
 * Rules [R] (README "Names"):
 *   - 1 to MAX_NAME_LENGTH characters from the safe alphabet A–Z a–z 0–9 . _ -
 *   - not starting with '.' or '-' (so no hidden files, no `.`/`..`, nothing a command line reads as a flag);
 *   - not a key of Object.prototype nor `prototype` (`__proto__`, `constructor`, `toString`, …), so a name never
 *     reaches an inherited property of a plain object.
 * resolveInside(folder, child) resolves `child` against `folder` and refuses a result that is the folder itself or
 * outside it — lexically, and again through the real path of the deepest part that exists (a planted symlinked folder
 * cannot lead out).
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';

export const MAX_NAME_LENGTH = 100;
const SAFE = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Shows a value for a message without letting control bytes or megabytes through. */
function shown(value: string): string {
  const cut = value.length > 120 ? `${value.slice(0, 120)}… (${value.length} characters)` : value;
  return JSON.stringify(cut);
}

/** Why `value` is not a safe name, or null when it is one. */
export function nameProblem(value: unknown): string | null {
  if (typeof value !== 'string') return `expected a string, found ${typeof value}`;
  if (value.length === 0) return 'is empty';
  if (value.length > MAX_NAME_LENGTH) return `is ${value.length} characters, over the limit of ${MAX_NAME_LENGTH}`;
  if (value.startsWith('.') || value.startsWith('-')) return "starts with '.' or '-'";
  if (!SAFE.test(value)) return 'has a character outside A-Z a-z 0-9 . _ - (no separators, spaces or control bytes)';
  if (value === 'prototype' || value === '__proto__' || Object.prototype.hasOwnProperty.call(Object.prototype, value)) {
    return 'is a reserved object key';
  }
  return null;
}

/** Returns `value` when it is a safe name (see the header), else throws a UsageError naming it. */
export function checkName(kind: string, value: unknown): string {
  const problem = nameProblem(value);
  if (problem !== null) {
    const v = typeof value === 'string' ? shown(value) : String(value);
    throw new UsageError(`${kind} name ${v} ${problem}; a ${kind} name is 1–${MAX_NAME_LENGTH} characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-'`);
  }
  return value as string;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** The real path of the deepest existing ancestor of `p` (or `p` itself), with the rest appended. */
function realOfExisting(p: string): string {
  let head = p;
  const tail: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(head);
      return tail.length ? resolve(real, ...tail.reverse()) : real;
    } catch {
      const up = dirname(head);
      if (up === head) return p;
      tail.push(head.slice(up.length + (up.endsWith(sep) ? 0 : 1)));
      head = up;
    }
  }
}

/**
 * `folder/child` as an absolute path, refused (UsageError) when it is `folder` itself or lies outside it, lexically
 * or through a symlink on the way. Every destination derived from a name passes here before anything is written or
 * removed.
 */
export function resolveInside(folder: string, child: string): string {
  const root = resolve(folder);
  const p = resolve(root, child);
  const realRoot = realOfExisting(root);
  // The last component may itself be a link (a planted symlink at the destination): judge its parent's real path.
  const realParent = realOfExisting(dirname(p));
  const realP = resolve(realParent, p.slice(dirname(p).length + 1));
  if (!inside(root, p) || !inside(realRoot, realP)) {
    throw new UsageError(`${shown(child)} leads outside ${root} (to ${realP}); refused before anything is written or removed`);
  }
  return p;
}

/** An own property of a plain record, never an inherited one (`__proto__`, `toString`, …). */
export function ownEntry<T>(record: Record<string, T> | null | undefined, key: string): T | undefined {
  if (!record || !Object.hasOwn(record, key)) return undefined;
  return record[key];
}
