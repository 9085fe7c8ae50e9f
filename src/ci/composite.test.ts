// The composite status, rule by rule in both modes, with the notes' examples and allow_failure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CompositeSymbol, compositeHasWarnings, compositeOfSymbols, compositeStatus, compositeSymbol } from './composite.ts';
import { type Status } from './status.ts';

const of = (...symbols: CompositeSymbol[]) => new Set(symbols);

describe('compositeSymbol', () => {
  const cases: [Status, boolean, CompositeSymbol][] = [
    ['failed', true, 'success_with_warnings'],
    ['canceled', true, 'success_with_warnings'],
    ['manual', true, 'ignored'],
    ['failed', false, 'failed'],
    ['manual', false, 'manual'],
    ['success', true, 'success'],
    ['skipped', true, 'skipped'],
    ['scheduled', true, 'scheduled'],
  ];
  for (const [status, allowFailure, symbol] of cases) {
    test(`${status} allow_failure=${allowFailure} → ${symbol}`, () => assert.equal(compositeSymbol({ status, allowFailure }), symbol));
  }
});

describe('compositeOfSymbols, stage mode', () => {
  const cases: [CompositeSymbol[], Status | null, string][] = [
    [[], null, 'empty'],
    [['skipped'], 'skipped', 'rule 3'],
    [['ignored'], 'skipped', 'rule 3'],
    [['skipped', 'ignored'], 'skipped', 'rule 3'],
    [['success'], 'success', 'rule 4'],
    [['success', 'skipped'], 'success', 'rule 4'],
    [['success', 'ignored'], 'success', 'rule 4 (notes example)'],
    [['success_with_warnings'], 'success', 'rule 4'],
    [['success', 'success_with_warnings', 'skipped', 'ignored'], 'success', 'rule 4'],
    [['created'], 'created', 'rule 5'],
    [['created', 'ignored'], 'created', 'rule 5'],
    [['created', 'success_with_warnings'], 'created', 'rule 5'],
    [['preparing'], 'preparing', 'rule 6'],
    [['preparing', 'ignored'], 'preparing', 'rule 6'],
    [['canceled'], 'canceled', 'rule 7'],
    [['canceled', 'success', 'skipped'], 'canceled', 'rule 7'],
    [['canceled', 'ignored'], 'canceled', 'rule 7'],
    [['pending'], 'pending', 'rule 8'],
    [['pending', 'created'], 'pending', 'rule 8'],
    [['pending', 'skipped', 'ignored'], 'pending', 'rule 8'],
    [['created', 'skipped'], 'pending', 'rule 8'],
    [['running'], 'running', 'rule 9'],
    [['pending', 'success'], 'running', 'rule 9'],
    [['running', 'failed'], 'running', 'rule 9'],
    [['running', 'manual'], 'running', 'rule 9'],
    [['waiting_for_resource'], 'waiting_for_resource', 'rule 10'],
    [['waiting_for_resource', 'success'], 'waiting_for_resource', 'rule 10'],
    [['waiting_for_resource', 'manual'], 'waiting_for_resource', 'rule 10'],
    [['manual'], 'manual', 'rule 11'],
    [['success', 'manual'], 'manual', 'rule 11 (notes example)'],
    [['manual', 'scheduled'], 'manual', 'rule 11'],
    [['manual', 'failed'], 'manual', 'rule 11'],
    [['manual', 'created'], 'manual', 'rule 11'],
    [['scheduled'], 'scheduled', 'rule 12'],
    [['scheduled', 'success'], 'scheduled', 'rule 12'],
    [['scheduled', 'preparing'], 'scheduled', 'rule 12'],
    [['preparing', 'success'], 'preparing', 'rule 13'],
    [['preparing', 'failed'], 'preparing', 'rule 13'],
    [['success', 'created'], 'running', 'rule 14 (notes example)'],
    [['failed', 'created'], 'running', 'rule 14'],
    [['success', 'failed'], 'failed', 'rule 15 (notes example)'],
    [['failed'], 'failed', 'rule 15'],
    [['failed', 'canceled'], 'failed', 'rule 15'],
    [['failed', 'skipped', 'ignored'], 'failed', 'rule 15'],
  ];
  for (const [symbols, expected, rule] of cases) {
    test(`{${symbols.join(', ')}} → ${expected} (${rule})`, () => assert.equal(compositeOfSymbols(of(...symbols)), expected));
  }
});

describe('compositeOfSymbols, DAG mode', () => {
  const cases: [CompositeSymbol[], Status | null, string][] = [
    [[], null, 'empty'],
    [['skipped'], 'skipped', 'rule 1'],
    [['success', 'skipped'], 'skipped', 'rule 1: a need that did not run skips the job'],
    [['ignored'], 'skipped', 'rule 1: an optional manual need that did not run'],
    [['success', 'ignored'], 'skipped', 'rule 1'],
    [['running', 'skipped'], 'skipped', 'rule 1 before rule 2'],
    [['created'], 'pending', 'rule 2'],
    [['success', 'running'], 'pending', 'rule 2'],
    [['success', 'manual'], 'pending', 'rule 2: a blocking manual need blocks'],
    [['scheduled'], 'pending', 'rule 2'],
    [['success'], 'success', 'rule 4'],
    [['success', 'success_with_warnings'], 'success', 'rule 4'],
    [['success_with_warnings'], 'success', 'rule 4'],
    [['canceled', 'success'], 'canceled', 'rule 7'],
    [['failed', 'success'], 'failed', 'rule 15'],
    [['failed', 'canceled'], 'failed', 'rule 15'],
  ];
  for (const [symbols, expected, rule] of cases) {
    test(`{${symbols.join(', ')}} → ${expected} (${rule})`, () => assert.equal(compositeOfSymbols(of(...symbols), { dag: true }), expected));
  }
});

describe('compositeStatus over jobs', () => {
  test('allow_failure turns failures into warnings and optional manual jobs into nothing', () => {
    assert.equal(compositeStatus([{ status: 'success', allowFailure: false }, { status: 'failed', allowFailure: true }]), 'success');
    assert.equal(compositeStatus([{ status: 'success', allowFailure: false }, { status: 'manual', allowFailure: true }]), 'success');
    assert.equal(compositeStatus([{ status: 'success', allowFailure: false }, { status: 'manual', allowFailure: false }]), 'manual');
    assert.equal(compositeStatus([{ status: 'failed', allowFailure: false }, { status: 'canceled', allowFailure: true }]), 'failed');
    assert.equal(compositeStatus([]), null);
    assert.equal(compositeStatus([{ status: 'manual', allowFailure: true }], { dag: true }), 'skipped');
  });
  test('warnings', () => {
    assert.equal(compositeHasWarnings([{ status: 'failed', allowFailure: true }]), true);
    assert.equal(compositeHasWarnings([{ status: 'failed', allowFailure: false }, { status: 'manual', allowFailure: true }]), false);
  });
});
