import { join } from 'node:path';

interface Suite {
  file: string;
  ms: number;
  failed: boolean;
}
type Reporter = {
  new (config: { rootDir: string }): {
    onRunComplete(contexts: unknown, results: unknown): void;
  };
  slowestSuites(suites: Suite[], wallMs: number, count: number): string;
};
// The reporter is plain CommonJS: jest loads it from jest.config.js without a transform.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SummaryReporter = require('../summary-reporter.cjs') as Reporter;

describe('summary reporter', () => {
  it('lists the slowest suites first, with durations, failures marked, and the wall time against their sum', () => {
    const suites = Array.from({ length: 12 }, (_, i) => ({
      file: `s${i}.test.ts`,
      ms: 1000 * i,
      failed: i === 10,
    }));
    const text = SummaryReporter.slowestSuites(suites, 50_000, 10);
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('slowest 10 of 12 suites (suites summed 66.0 s, wall 50.0 s):');
    expect(lines.slice(1)).toHaveLength(10);
    expect(lines[1]).toBe('  11.0 s  s11.test.ts');
    expect(lines[2]).toBe('  10.0 s  s10.test.ts  (failed)');
    expect(lines[10]).toBe('   2.0 s  s2.test.ts');
    expect(SummaryReporter.slowestSuites(suites, 1, 0)).toBe('');
  });

  it('prints the list before the closing tests line, from what jest reports', () => {
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const suite = (name: string, start: number, end: number, failing = 0) => ({
        testFilePath: join('/repo', name),
        perfStats: { start, end },
        numFailingTests: failing,
      });
      new SummaryReporter({ rootDir: '/repo' }).onRunComplete([], {
        testResults: [
          suite('a.test.ts', 1000, 4000),
          suite('b.test.ts', 1000, 1500, 1),
          suite('c.test.ts', 0, 0),
        ],
        numPassedTests: 5,
        numFailedTests: 1,
        numRuntimeErrorTestSuites: 1,
        numPendingTests: 0,
        numTodoTests: 0,
      });
    } finally {
      spy.mockRestore();
    }
    const text = written.join('');
    expect(text).toMatch(/slowest 2 of 2 suites \(suites summed 3\.5 s, wall [\d.]+ s\):\n/);
    expect(text).toContain(['  3.0 s  a.test.ts', '  0.5 s  b.test.ts  (failed)', ''].join('\n'));
    expect(text.endsWith('\ntests: 5 passed, 2 failed\n')).toBe(true);
  });
});
