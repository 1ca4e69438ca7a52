/**
 * The browser scripts that pages inline (the comparison page's viewer and figures, src/report/page/), as text: bundled
 * at build time by scripts/bundle-pages.mjs into dist/report/page-scripts.json and read from there — by dist/ and the
 * CLI bundle as by the sources under a test runner (the package root is two folders up from each). A page's script is
 * therefore the one the last build made: dist/'s record of its sources (bin/source-check.mjs) covers src/report/page/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../errors.js';

/** The page scripts the build writes, by name. */
export type PageScriptName = 'comparison';

const FILE = fileURLToPath(new URL('../../dist/report/page-scripts.json', import.meta.url));

/** The bundled script `name`, ready to inline in a `<script>` element ("</script" escaped). */
export function pageScript(name: PageScriptName): string {
  if (!existsSync(FILE)) throw new InputError(`the report pages' scripts are not built (${FILE} is missing): run \`npm run build\``);
  const scripts = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, string>;
  const text = scripts[name];
  if (typeof text !== 'string') throw new InputError(`${FILE} holds no script "${name}": run \`npm run build\``);
  return text.replace(/<\/(script)/gi, '<\\/$1');
}
