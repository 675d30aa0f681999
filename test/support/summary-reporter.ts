import type { Reporter, TestModule } from 'vitest/node';

/**
 * After vitest's own report: how many tests ran on each database, so a CI
 * log shows at a glance that the PostgreSQL suite really ran, and a plain
 * `N passed, N failed, N skipped` closing line.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const byDialect = new Map<string, { passed: number; failed: number; skipped: number }>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        const bucket = state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped';
        counts[bucket]++;
        const dialect = /\[(sqlite|postgres)\]/.exec(test.fullName)?.[1];
        if (dialect === undefined) continue;
        const entry = byDialect.get(dialect) ?? { passed: 0, failed: 0, skipped: 0 };
        entry[bucket]++;
        byDialect.set(dialect, entry);
      }
    }
    const lines = ['', 'Database suites:'];
    for (const dialect of ['sqlite', 'postgres']) {
      const entry = byDialect.get(dialect);
      lines.push(
        entry === undefined
          ? `  ${dialect}: did not run`
          : `  ${dialect}: ${entry.passed} passed, ${entry.failed} failed, ${entry.skipped} skipped`,
      );
    }
    lines.push('', `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`, '');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
