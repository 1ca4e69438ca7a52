// -*- coding: utf-8 -*-
// %% [markdown]
// # Your reconstruction against the original, stage by stage
//
// Reads what `npx heightbench check --all` wrote (reports/check/summary.json), then holds the first comparison's final
// map against its reference in memory. Open it with a TypeScript kernel (tslab: `npm install tslab && npx tslab install`).

// %%
import { readFileSync } from 'node:fs';
import * as hb from 'heightbench/notebook';
const summary = JSON.parse(readFileSync('../reports/check/summary.json', 'utf8')) as {
  comparisons: { name: string; generated: string; reference: string; verdict: string; exactPercent: number | null; maxAbsCode: number | null }[];
};
console.table(summary.comparisons.map((c) => ({ name: c.name, verdict: c.verdict, exact: c.exactPercent, maxCode: c.maxAbsCode })));

// %%
const first = summary.comparisons[0];
const generated = hb.readHeightfieldFile(`../${first.generated}/final.r16`).field;
const reference = hb.readHeightfieldFile(`../${first.reference}/final.r16`).field;
const cmp = hb.compareHeightfields(generated, reference);
console.log(hb.summaryMarkdown(cmp, { generated: first.generated, reference: first.reference }));
