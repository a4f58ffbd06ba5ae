// Prints, after jest's own summary (same stream, stderr, so they stay last): the slowest suites with
// their durations, the run's wall time against the sum of suite times (how well the workers were
// used), and one plain closing line, "tests: N passed, N failed[, N skipped]". A suite that failed to
// run counts as a failure. SLOWEST_SUITES=n shows n suites (default 10, 0 for none).
const { relative } = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const suites = results.testResults
      .map((suite) => ({
        file: relative(this.rootDir, suite.testFilePath),
        ms: suiteMs(suite),
        failed: suite.numFailingTests > 0 || Boolean(suite.testExecError),
      }))
      .filter((suite) => suite.ms !== undefined);
    // Wall time since jest started: globalSetup (the servers) included.
    process.stderr.write(slowestSuites(suites, process.uptime() * 1000, slowestCount()));
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stderr.write(
      `\ntests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}

/** The suite's time in its worker, from its first test file line loaded to its last hook; undefined if it never ran. */
function suiteMs(suite) {
  const { start, end } = suite.perfStats ?? {};
  return start > 0 && end >= start ? end - start : undefined;
}

function slowestCount() {
  const n = Number(process.env.SLOWEST_SUITES ?? 10);
  return Number.isInteger(n) && n >= 0 ? n : 10;
}

function slowestSuites(suites, wallMs, count) {
  if (count === 0 || suites.length < 2) return '';
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const summed = suites.reduce((sum, suite) => sum + suite.ms, 0);
  const slowest = [...suites].sort((a, b) => b.ms - a.ms).slice(0, count);
  const width = Math.max(...slowest.map((suite) => seconds(suite.ms).length));
  const lines = slowest.map(
    (suite) => `  ${seconds(suite.ms).padStart(width)}  ${suite.file}${suite.failed ? '  (failed)' : ''}`,
  );
  return (
    `\nslowest ${slowest.length} of ${suites.length} suites ` +
    `(suites summed ${seconds(summed)}, wall ${seconds(wallMs)}):\n${lines.join('\n')}\n`
  );
}

module.exports = SummaryReporter;
module.exports.slowestSuites = slowestSuites;
