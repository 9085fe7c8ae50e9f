// Coverage extraction: backwards scan, last match, last group, first number, RE2 only, bounded tail.
import assert from 'node:assert/strict';
import { mkdtemp, open, rm, truncate, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type TraceSource, coveragePattern, extractCoverage, extractCoverageFromTail, fileTraceSource } from './coverage.ts';

describe('extractCoverage', () => {
  const cases: [string, string, string, number | null][] = [
    ['a simple summary', 'Running\nCoverage: 85.3%\nDone\n', 'Coverage: \\d+\\.\\d+%', 85.3],
    ['the last matching line wins', 'Coverage: 10%\nCoverage: 20%\n', 'Coverage: \\d+%', 20],
    ['the last match in the line', 'lines 10% branches 20%', '\\d+%', 20],
    ['the first number in the match', 'Total: 3 files 92.5% covered', 'Total:.*covered', 3],
    ['the last group of the last match', 'a=1 b=2; a=3 b=4', 'a=(\\d) b=(\\d)', 4],
    ['a match without a number sends the scan upwards', 'Coverage: 70%\nCoverage: n/a\n', 'Coverage: \\S+', 70],
    ['no match', 'nothing here\n', 'Coverage: \\d+', null],
    ['an unset group gives up, as the platform does', 'cov 50\nx\n', '(cov \\d+)|(x)', null],
    ['an invalid regex gives nothing', 'Coverage: 10%', '(unclosed', null],
    ['backtracking-only syntax is refused by RE2', 'Coverage: 10%', '(?<=Coverage: )\\d+', null],
    ['an empty regex gives nothing', 'Coverage: 10%', '', null],
    ['an empty trace', '', 'Coverage', null],
    ['a line end before CR LF', 'Coverage: 42%\r\n', 'Coverage: \\d+%$', 42],
    ['integers', 'TOTAL 120 30 75%', 'TOTAL\\s+\\d+\\s+\\d+\\s+(\\d+%)', 75],
    ['ANSI colours stay in the line', '\u001b[32mCoverage: 99.9%\u001b[0m', 'Coverage: \\d+\\.\\d+', 99.9],
    ['an empty last match has no number, as with Ruby scan', 'abc 7', '\\d*', null],
  ];
  for (const [name, trace, regex, expected] of cases) {
    test(name, () => assert.equal(extractCoverage(trace, regex), expected));
  }

  test('a pathological regex stays linear', () => {
    const started = performance.now();
    assert.equal(extractCoverage(`${'a'.repeat(20_000)}!`, '(a+)+$'), null);
    assert.ok(performance.now() - started < 5_000);
  });

  test('the YAML form loses its slashes', () => {
    assert.equal(coveragePattern('/Coverage: \\d+%/'), 'Coverage: \\d+%');
    assert.equal(coveragePattern('Coverage'), 'Coverage');
    assert.equal(coveragePattern('/'), '/');
  });
});

describe('extractCoverageFromTail', () => {
  /** A 100 MB trace made up on demand, counting what is read. */
  function hugeTrace(lastLines: string): TraceSource & { bytesRead: number } {
    const tail = Buffer.from(lastLines);
    const size = 100 * 1024 * 1024;
    const source = {
      size,
      bytesRead: 0,
      async read(position: number, length: number) {
        source.bytesRead += length;
        const out = Buffer.alloc(length, 'x\n'.repeat(1)); // filler lines of "x"
        const tailStart = size - tail.length;
        for (let i = 0; i < length; i++) if (position + i >= tailStart) out[i] = tail[position + i - tailStart];
        return out;
      },
    };
    return source;
  }

  test('a 100 MB trace is scanned from its last MiB only', async () => {
    const trace = hugeTrace('\nCoverage: 77.7%\nJob succeeded\n');
    assert.equal(await extractCoverageFromTail(trace, 'Coverage: \\d+\\.\\d+%'), 77.7);
    assert.equal(trace.bytesRead, 1024 * 1024);
  });

  test('what lies before the tail is not seen, and the cut line is dropped', async () => {
    const text = `Coverage: 11%\n${'y'.repeat(100)}\nCoverage: 2`;
    const source: TraceSource = { size: Buffer.byteLength(text), read: async (p, l) => Buffer.from(text).subarray(p, p + l) };
    assert.equal(await extractCoverageFromTail(source, 'Coverage: \\d+%', { maxBytes: 60 }), null);
    assert.equal(await extractCoverageFromTail(source, 'Coverage: \\d+%', { maxBytes: 1000 }), 11);
    assert.equal(await extractCoverageFromTail(source, 'y+', { maxBytes: 1000 }), null);
  });

  test('from a file on disk (sparse, 100 MB)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'quarry-coverage-'));
    try {
      const path = join(dir, 'trace.log');
      await appendFile(path, 'start\n');
      await truncate(path, 100 * 1024 * 1024);
      await appendFile(path, '\nTOTAL 88%\n');
      const handle = await open(path, 'r');
      try {
        assert.equal(await extractCoverageFromTail(await fileTraceSource(handle), 'TOTAL \\d+%'), 88);
      } finally {
        await handle.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
