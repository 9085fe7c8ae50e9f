// A resource group's jobs run one at a time: the oldest waiting job gets a free resource.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ResourceGroupJob, assignResources, busyResourceGroups } from './resource-groups.ts';

const NOW = new Date('2021-10-01T12:00:00.000Z');
const j = (id: number, status: ResourceGroupJob['status'], resourceGroup: string | null): ResourceGroupJob => ({ id, status, resourceGroup });

test('groups are busy while one of their jobs is preparing, pending or running', () => {
  const jobs = [j(1, 'running', 'a'), j(2, 'pending', 'b'), j(3, 'preparing', 'c'), j(4, 'success', 'd'), j(5, 'waiting_for_resource', 'e'), j(6, 'running', null)];
  assert.deepEqual([...busyResourceGroups(jobs)].sort(), ['a', 'b', 'c']);
});

test('the oldest waiting job of each free group goes pending', () => {
  const jobs = [j(9, 'waiting_for_resource', 'prod'), j(7, 'waiting_for_resource', 'prod'), j(8, 'waiting_for_resource', 'staging')];
  assert.deepEqual(assignResources(jobs, [], NOW), [
    { id: 7, from: 'waiting_for_resource', to: 'pending', event: 'enqueue_waiting_for_resource', queuedAt: NOW },
    { id: 8, from: 'waiting_for_resource', to: 'pending', event: 'enqueue_waiting_for_resource', queuedAt: NOW },
  ]);
});

test('a group busy elsewhere in the project, or among the given jobs, keeps its jobs waiting', () => {
  const waiting = [j(1, 'waiting_for_resource', 'prod'), j(2, 'waiting_for_resource', 'staging')];
  assert.deepEqual(assignResources(waiting, ['prod'], NOW).map((c) => c.id), [2]);
  assert.deepEqual(assignResources([...waiting, j(3, 'running', 'staging')], ['prod'], NOW), []);
  assert.deepEqual(assignResources([j(4, 'success', 'prod'), j(5, 'waiting_for_resource', 'prod')], [], NOW).map((c) => c.id), [5]);
});
