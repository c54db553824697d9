/** GitLab's default issue closing pattern, read as its reference extractor reads what it matched. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closingReferences } from '../../packages/core/src/domains/issues/closing-references.js';

const refs = (text: string) => closingReferences(text, 'https://forge.example/', 'acme').map((r) => `${r.projectPath ?? ''}#${r.iid}`);

describe('closing references', () => {
  it('reads every keyword form of the default pattern', () => {
    for (const text of ['Closes #5', 'closes #5', 'Close #5', 'Closed #5', 'Closing #5', 'Fix #5', 'Fixes #5', 'Fixed #5', 'Fixing #5', 'Resolve #5', 'Resolves #5', 'Resolved #5', 'Resolving #5', 'Implement #5', 'Implements #5', 'Implemented #5', 'Implementing #5', 'Closes: #5', 'Closes issue #5']) {
      assert.deepEqual(refs(text), ['#5'], text);
    }
  });

  it('reads lists, cross-project references and links to this instance', () => {
    assert.deepEqual(refs('Closes issues #9, #10 and #11'), ['#9', '#10', '#11']);
    assert.deepEqual(refs('Fix login\n\nFixes acme/lib#3 and lib#4\nResolves https://forge.example/acme/app/-/issues/7.'), ['acme/lib#3', 'acme/lib#4', 'acme/app#7']);
    assert.deepEqual(refs('Closes #1, closes #1'), ['#1'], 'once each');
  });

  it('closes nothing for mentions, other hosts and external tracker keys', () => {
    assert.deepEqual(refs('See #3, related to #4'), []);
    assert.deepEqual(refs('Closes https://elsewhere.example/acme/app/-/issues/3'), []);
    assert.deepEqual(refs('Closes JIRA-12'), []);
    assert.deepEqual(refs('Encloses #3'), [], 'a keyword inside a word');
    assert.deepEqual(refs(''), []);
  });
});
