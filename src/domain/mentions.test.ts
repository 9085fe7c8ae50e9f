// Who a text mentions and whom it addresses directly, on the platform's own examples
// (spec/lib/gitlab/reference_extractor_spec.rb) and the places Markdown mentions nobody.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineMentions, markdownMentions } from './mentions.ts';

test('a mention that begins a line of a top-level paragraph addresses directly; in lists and quotes it only mentions', () => {
  const text = [
    '@foo What do you think? cc: @tom',
    '',
    '- @bar can you please have a look?',
    '',
    '>>>',
    '@foo2 what do you think? cc: @bar2',
    '>>>',
    '',
    '@foo3 @foo4 thank you!',
    '',
    '> @foo5 well done!',
    '',
    '1. @bar3 Can you please check? cc: @tom2',
    '2. @bar4 What do you this of this MR?',
  ].join('\n');
  assert.deepEqual(markdownMentions(text), {
    directlyAddressed: ['foo', 'foo3', 'foo4'],
    mentioned: ['tom', 'bar', 'foo2', 'bar2', 'foo5', 'bar3', 'tom2', 'bar4'],
  });
  assert.deepEqual(markdownMentions('What do you think? cc: @foo @bar'), { directlyAddressed: [], mentioned: ['foo', 'bar'] });
  assert.deepEqual(markdownMentions('Hello\n@Foo, and @bar'), { directlyAddressed: ['foo'], mentioned: ['bar'] });
});

test('code, link texts and e-mail addresses mention nobody; paths of subgroups do; case is folded', () => {
  const text = 'Inline `@foo`, [@bar](https://example.com), bob@example.com, @Group/Sub.\n\n```\n@fenced\n```\n\n    @indented\n';
  assert.deepEqual(markdownMentions(text), { directlyAddressed: [], mentioned: ['group/sub'] });
  assert.deepEqual(markdownMentions(null), { directlyAddressed: [], mentioned: [] });
});

test('a title mentions, but addresses nobody', () => {
  assert.deepEqual(lineMentions('@alice fixes `@code` for @all'), ['alice', 'all']);
  assert.deepEqual(lineMentions(null), []);
});
