// Runs every benchmark suite and prints a table of medians and ratios against a baseline measured in the same run.
// Usage: npm run bench [-- --quick]
import { formatTable, measureSuite } from './harness.js';
import { eventsSeen, toolExecutorSuite } from './tool-executor.bench.js';

const quick = process.argv.includes('--quick');
const options = { samples: quick ? 5 : 25, targetSampleMs: quick ? 20 : 50 };
const suites = [toolExecutorSuite];

console.log(
  `OpenJarvis benchmarks (node ${process.version}, ${options.samples} samples per case)\n`,
);
for (const suite of suites) {
  const results = await measureSuite(suite, options);
  console.log(`${formatTable(suite, results)}\n`);
}
if (eventsSeen() === 0)
  throw new Error('the bus subscribers never ran: the event benchmark measured nothing');
