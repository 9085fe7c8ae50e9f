// Dotenv reports read as the platform's Ci::ParseDotenvArtifactService reads them (its spec's cases).
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { DotenvError, parseDotenv, readDotenvReport } from './dotenv.ts';

const parse = (...files: string[]) => parseDotenv(files.map((f) => Buffer.from(f)));
const pairs = (...files: string[]) => parse(...files).map((v) => [v.key, v.value]);
const refusal = (fn: () => unknown, message: string) => assert.throws(fn, (e) => e instanceof DotenvError && e.message === message);

describe('parseDotenv', () => {
  test('KEY=VALUE lines: the first = splits, both sides trimmed, the value kept as written', () => {
    assert.deepEqual(pairs('KEY1=VAR1\nKEY2=VAR2\n'), [['KEY1', 'VAR1'], ['KEY2', 'VAR2']]);
    assert.deepEqual(pairs('KEY1 =VAR1'), [['KEY1', 'VAR1']]);
    assert.deepEqual(pairs('KEY=VARCONTAINING=EQLS'), [['KEY', 'VARCONTAINING=EQLS']]);
    assert.deepEqual(pairs('skateboard=🛹'), [['skateboard', '🛹']]);
    assert.deepEqual(pairs('KEY1=V A R 1'), [['KEY1', 'V A R 1']]);
    assert.deepEqual(pairs('KEY1="VAR1"'), [['KEY1', '"VAR1"']]);
    assert.deepEqual(pairs("KEY1='VAR1'"), [['KEY1', "'VAR1'"]]);
    assert.deepEqual(pairs('KEY1="  VAR1  "'), [['KEY1', '"  VAR1  "']]);
    assert.deepEqual(pairs('KEY1='), [['KEY1', '']]);
    assert.deepEqual(pairs('KEY1=VAR1\nKEY2=${KEY1}_Test\n'), [['KEY1', 'VAR1'], ['KEY2', '${KEY1}_Test']]);
    assert.deepEqual(pairs('KEY1=VAR1         # This is variable\n'), [['KEY1', 'VAR1         # This is variable']]);
  });

  test('several files, CRLF line ends and a byte order mark; a key given twice keeps its place and its last value', () => {
    assert.deepEqual(pairs('\ufeffA=1\r\nB=2\r\n', 'A=3'), [['A', '3'], ['B', '2']]);
    assert.deepEqual(pairs(''), []);
  });

  test('refusals in the platform words', () => {
    refusal(() => parse("{ 'KEY1': 'VAR1' }"), 'Invalid Format');
    refusal(() => parse('KEY1=VAR1\n\nKEY2=VAR2\n'), 'Invalid Format');
    refusal(() => parse('🛹=skateboard'), "Validation failed: Key can contain only letters, digits and '_'.");
    refusal(() => parse('K E Y 1=VAR1'), "Validation failed: Key can contain only letters, digits and '_'.");
    refusal(() => parse('=VAR1'), "Validation failed: Key can't be blank, Key can contain only letters, digits and '_'.");
    refusal(() => parse(`${'K'.repeat(256)}=1`), 'Validation failed: Key is too long (maximum is 255 characters)');
    refusal(() => parse(Array.from({ length: 21 }, (_, i) => `KEY${i}=VAR${i}\n`).join('')), 'Dotenv files cannot have more than 20 variables');
    assert.equal(parse(Array.from({ length: 20 }, (_, i) => `KEY${i}=VAR${i}\n`).join('')).length, 20);
  });
});

describe('readDotenvReport', () => {
  const read = (bytes: Uint8Array) => async () => bytes;
  test('gzip members, one per file', async () => {
    const report = Buffer.concat([gzipSync('A=1\n'), gzipSync('B=2\n')]);
    assert.deepEqual(await readDotenvReport(report.length, 'gzip', read(report)), [{ key: 'A', value: '1' }, { key: 'B', value: '2' }]);
  });
  test('too large is refused before it is read; other formats and broken gzip are refused', async () => {
    const never = async (): Promise<Uint8Array> => assert.fail('read');
    await assert.rejects(readDotenvReport(5120, 'gzip', never), { message: 'Dotenv Artifact Too Big. Maximum Allowable Size: 5120' });
    await assert.rejects(readDotenvReport(4, 'raw', never), { message: 'Validation failed: Invalid file format with specified file type' });
    await assert.rejects(readDotenvReport(4, 'gzip', read(Buffer.from('A=1\n'))), { message: 'Invalid Format' });
  });
});
