import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { undoFailed, undoWords } from '../../web/scan/undo-text.ts';

const what = 'Admit #3 · Ada Lovelace · General admission';

describe('the words of an undo', () => {
  it('says an entry undone by the issuer, or queued until it answers, naming the admit', () => {
    assert.deepEqual(undoWords({ annulled: true, source: 'issuer' }, what), {
      outcome: 'undone',
      text: `Entry undone: ${what}.`,
    });
    assert.deepEqual(undoWords({ annulled: true, source: 'queued' }, what), {
      outcome: 'queued',
      text: `Undo queued — will be sent when online: ${what}.`,
    });
  });

  it('says each refusal in words, never its code, and that the entry stands', () => {
    const refused = (reason: string) => undoWords({ annulled: false, reason }, what);
    assert.match(refused('window_passed').text, /^Not undone: too late: /);
    assert.match(refused('not_latest').text, /^Not undone: the ticket moved since \(an exit or a later entry\)/);
    assert.match(refused('not_an_entry').text, /^Not undone: that scan did not let anyone in/);
    assert.match(refused('NOT_FOUND').text, /^Not undone: no entry made by this device was found for it/);
    for (const reason of ['window_passed', 'not_latest', 'not_an_entry', 'not_found', 'NOT_FOUND']) {
      const words = refused(reason);
      assert.equal(words.outcome, 'refused');
      assert.doesNotMatch(words.text, new RegExp(reason));
      assert.ok(words.text.endsWith(` The entry stands: ${what}.`), words.text);
    }
  });

  it('falls back to the answer’s message for a reason it has no words for, and says a device error', () => {
    const odd = undoWords({ annulled: false, reason: 'something_new', message: 'the issuer is in maintenance' }, what);
    assert.match(odd.text, /^Not undone: the issuer is in maintenance\./);
    assert.match(
      undoWords({ annulled: false, reason: 'something_new' }, what).text,
      /^Not undone: the issuer refused it/,
    );
    assert.deepEqual(undoFailed(what, 'storage is full'), {
      outcome: 'refused',
      text: `Not undone: storage is full. The entry stands: ${what}.`,
    });
  });
});
