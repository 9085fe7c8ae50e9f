import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommandLineError, parseCommandLine, splitCommandLine } from './command-line.ts';

test('words as the platform shell splits them', () => {
  assert.deepEqual(splitCommandLine(''), []);
  assert.deepEqual(splitCommandLine("git-upload-pack 'group/project.git'"), ['git-upload-pack', 'group/project.git']);
  assert.deepEqual(splitCommandLine('  a\t b  '), ['a', 'b']);
  assert.deepEqual(splitCommandLine(`a "b c" 'd "e"' f\\ g ''`), ['a', 'b c', 'd "e"', 'f g', '']);
  assert.deepEqual(splitCommandLine(`"a\\"b"`), ['a"b']);
  // An unquoted ; & | < > ends the command: nothing after it is read.
  assert.deepEqual(splitCommandLine("git-upload-pack 'x'; rm -rf /"), ['git-upload-pack', 'x']);
  assert.deepEqual(splitCommandLine("a 'b;c' d|e"), ['a', 'b;c', 'd']);
  assert.deepEqual(splitCommandLine('$HOME `id`'), ['$HOME', '`id`']);
  for (const bad of ["'open", '"open', 'trailing\\']) assert.throws(() => splitCommandLine(bad), CommandLineError);
});

test('git upload-pack reads as git-upload-pack', () => {
  assert.deepEqual(parseCommandLine("git upload-pack 'a/b.git'"), ['git-upload-pack', 'a/b.git']);
  assert.deepEqual(parseCommandLine('git'), ['git']);
});
