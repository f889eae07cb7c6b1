import { structuralTimes } from '/work/wt-merge/bench/structural-merge.ts';
import { formatTable } from '/work/wt-merge/bench/table.ts';
console.log(formatTable(await structuralTimes()));
