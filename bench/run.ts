// Runs every benchmark suite and prints a table of medians and ratios against a baseline measured in the same run.
// Usage: npm run bench [-- --quick]
import { agentMemoryReport, agentRunSuites } from './agent.bench.js';
import { cliStartupReport } from './cli.bench.js';
import { downloadBench } from './download.bench.js';
import { embeddedBench } from './embedded.bench.js';
import { engineRoundTripSuite } from './engine.bench.js';
import { type BenchSuite, formatTable, measureSuite } from './harness.js';
import { httpServerBench } from './http-server.bench.js';
import { importCostReport } from './import.bench.js';
import { memoryBenchSuite } from './memory.bench.js';
import { postgresDriverBench } from './postgres-driver.bench.js';
import { sandboxStartupSuite } from './sandbox.bench.js';
import { schedulerBench } from './scheduler.bench.js';
import { schedulerCrashBench } from './scheduler-crash.bench.js';
import { serveBench } from './serve.bench.js';
import { sessionHistoryBench } from './session-history.bench.js';
import { toolCallFormatsBench } from './tool-call-formats.bench.js';
import { eventsSeen, toolExecutorSuite } from './tool-executor.bench.js';

const quick = process.argv.includes('--quick');
const options = { samples: quick ? 5 : 25, targetSampleMs: quick ? 20 : 50 };

async function report(suite: BenchSuite): Promise<void> {
  const results = await measureSuite(suite, options);
  console.log(`${formatTable(suite, results)}\n`);
}

console.log(
  `OpenJarvis benchmarks (node ${process.version}, ${options.samples} samples per case)\n`,
);
await report(toolExecutorSuite);
if (eventsSeen() === 0)
  throw new Error('the bus subscribers never ran: the event benchmark measured nothing');

const engines = await engineRoundTripSuite();
try {
  await report(engines.suite);
} finally {
  await engines.close();
}

const agents = await agentRunSuites();
try {
  for (const suite of agents.suites) await report(suite);
  console.log(`${agents.cpuReport(options.samples)}\n`);
  for (const line of agents.skipped) console.log(line);
} finally {
  agents.close();
}
console.log(`${await agentMemoryReport({ quick })}\n`);

const sandbox = await sandboxStartupSuite();
for (const line of sandbox.skipped) console.log(line);
if (sandbox.skipped.length === 0)
  console.log(`${(await sandbox.report({ samples: quick ? 20 : 100 })).table}\n`);

const scheduler = schedulerBench({ quick });
try {
  console.log(`${await scheduler.run()}\n`);
} finally {
  await scheduler.close();
}
console.log(`${await schedulerCrashBench({ quick })}\n`);

const memory = await memoryBenchSuite({ quick });
try {
  console.log(`${await memory.run()}\n`);
} finally {
  await memory.close();
}

console.log(`${await cliStartupReport({ samples: quick ? 5 : 30 })}\n`);
console.log(`${await importCostReport({ samples: quick ? 5 : 20 })}\n`);

console.log(`${await embeddedBench({ quick })}\n`);
console.log(`${await downloadBench({ quick })}\n`);
console.log(`${await toolCallFormatsBench({ quick })}\n`);
console.log(`${await sessionHistoryBench({ quick })}\n`);
console.log(`${await httpServerBench({ quick })}\n`);
console.log(`${await serveBench({ quick })}\n`);
console.log(`${await postgresDriverBench({ quick })}\n`);
