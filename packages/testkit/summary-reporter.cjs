// Prints one plain closing line, "tests: N passed, N failed[, N skipped]", after jest's own summary
// (same stream, stderr, so it stays last). A suite that failed to run counts as a failure.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stderr.write(
      `\ntests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
module.exports = SummaryReporter;
