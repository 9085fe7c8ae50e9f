// The platform's validation messages and how they join into full messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLANK, TAKEN, addError, atLeast, atMost, fullMessage, fullMessagesSentence, humanAttribute, toSentence, tooLong, tooShort } from './validation.ts';

test('messages with a bound name it', () => {
  assert.equal(tooLong(255), 'is too long (maximum is 255 characters)');
  assert.equal(tooShort(2), 'is too short (minimum is 2 characters)');
  assert.equal(atLeast(0), 'must be greater than or equal to 0');
  assert.equal(atMost(10), 'must be less than or equal to 10');
});

test('addError keeps a field\'s messages in the order they were added', () => {
  const errors = {};
  addError(errors, 'name', BLANK);
  addError(errors, 'path', TAKEN);
  addError(errors, 'name', tooLong(255));
  assert.deepEqual(errors, { name: ["can't be blank", 'is too long (maximum is 255 characters)'], path: ['has already been taken'] });
});

test('full messages: the humanized attribute, then the message; joined as a sentence', () => {
  assert.equal(humanAttribute('expires_at'), 'Expires at');
  assert.equal(humanAttribute('user_id'), 'User');
  assert.equal(fullMessage('name', BLANK), "Name can't be blank");
  assert.equal(fullMessagesSentence({ name: [BLANK] }), "Name can't be blank");
  assert.equal(fullMessagesSentence({ name: [BLANK], scopes: [BLANK] }), "Name can't be blank and Scopes can't be blank");
  assert.equal(fullMessagesSentence({ name: [BLANK, tooLong(255)], email: [TAKEN] }), "Name can't be blank, Name is too long (maximum is 255 characters), and Email has already been taken");
  assert.equal(toSentence([]), '');
  assert.equal(toSentence(['RSA', 'DSA', 'ECDSA'], 'or'), 'RSA, DSA, or ECDSA');
  assert.equal(toSentence(['RSA', 'DSA'], 'or'), 'RSA or DSA');
});
