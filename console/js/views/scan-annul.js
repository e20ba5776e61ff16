import { may } from '../access.js';
import { api } from '../api.js';
import { field, h, message, replace, uid, when } from '../dom.js';
import { plural } from '../words.js';

/** The most characters of a reason (the admin API's limit). */
const MAX_REASON = 500;

/** The issuer's refusals of an annul (409 `details.reason`), as an organizer reads them. */
const REFUSALS = {
  not_latest: 'the ticket moved since (an exit or a later entry)',
  not_an_entry: 'this scan was not an entry that counts',
};

/** Why an annul was not done, in words, ending with a full stop. */
export function annulRefusal(error) {
  const text =
    (error?.code === 'CONFLICT' && REFUSALS[error.details?.reason]) ||
    (error?.code === 'NOT_FOUND' ? 'this scan is not in the event’s scan log' : (error?.message ?? String(error)));
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Whose ticket a scan was: its holder, else its tid. */
const whose = (scan) => scan.holder_name ?? `ticket ${scan.tid}`;

/**
 * An organizer's annul of a line of the scan log (`POST …/scans/{scan_id}/annul`): a modal dialog that
 * names the holder and takes an optional reason (written to the issuer's log), and a status line for
 * the outcome. Both live outside the log's list, which every poll draws anew. `onAnnulled(scan)` runs
 * once the issuer has annulled the entry.
 */
export function scanAnnul(eid, onAnnulled) {
  const titleId = uid('annul-title');
  const question = h('p');
  const reason = h('input', { type: 'text', maxlength: String(MAX_REASON), autocomplete: 'off' });
  const problem = h('div');
  const confirmButton = h('button', { type: 'submit', class: 'danger', text: 'Annul entry' });
  const feedback = h('div', { class: 'annul-feedback' });
  let current = null;

  async function submit(event) {
    event.preventDefault();
    const scan = current;
    confirmButton.disabled = true;
    try {
      const text = reason.value.trim();
      const answer = await api(
        'POST',
        `/events/${encodeURIComponent(eid)}/scans/${encodeURIComponent(scan.scan_id)}/annul`,
        text === '' ? {} : { reason: text },
      );
      dialog.close();
      const { checked_in_at: checkedIn, entries } = answer.ticket;
      const now =
        checkedIn === null
          ? 'the ticket is unused again'
          : `${plural(entries, 'entry', 'entries')} of it still ${entries === 1 ? 'counts' : 'count'}`;
      replace(feedback, message('success', `Annulled: the entry of ${whose(scan)} no longer counts; ${now}.`));
      onAnnulled(scan);
    } catch (error) {
      replace(problem, message('error', `Not annulled: ${annulRefusal(error)}`));
    } finally {
      confirmButton.disabled = false;
    }
  }

  const dialog = h(
    'dialog',
    { class: 'annul-dialog', 'aria-labelledby': titleId },
    h('h3', { id: titleId, text: 'Annul an entry' }),
    h(
      'form',
      { onSubmit: submit },
      question,
      field('Reason (optional)', reason, 'Written to the issuer’s log with the annul.'),
      problem,
      h(
        'div',
        { class: 'actions' },
        confirmButton,
        h('button', { type: 'button', class: 'secondary', text: 'Cancel', onClick: () => dialog.close() }),
      ),
    ),
  );

  // Back to the line after the dialog: a poll may have drawn it anew meanwhile (the button the dialog
  // would return to is gone), and after an annul the line shows its note instead of the button.
  dialog.addEventListener('close', () => {
    const at = document.activeElement;
    if (current === null || (at && at !== document.body && !dialog.contains(at))) return;
    document.querySelector(`[data-scan-id="${current.scan_id}"]`)?.focus();
  });

  /** Asks about this scan's entry. */
  function open(scan) {
    current = scan;
    reason.value = '';
    replace(problem);
    question.textContent =
      `Annul the entry of ${whose(scan)}, scanned ${when(scan.scanned_at)} at ${scan.gate_id ?? 'no gate'}? ` +
      'It no longer counts: the holder is back where they were before it, and scanners learn it at their next sync.';
    dialog.showModal();
  }

  /**
   * What a line of the log says of annulling: "Entry annulled at …" once annulled, a button **Annul
   * entry** on an entry that counts (a valid scan, not a replay of one) for a role that may annul, else
   * nothing.
   */
  function control(scan) {
    if (scan.annulled_at) {
      return h(
        'div',
        { class: 'annulled-note small', 'data-scan-id': scan.scan_id, tabindex: '-1' },
        h('strong', { text: 'Entry annulled' }),
        ` at ${when(scan.annulled_at)}`,
      );
    }
    if (scan.outcome !== 'valid' || scan.replay || !may('scan.annul', eid)) return null;
    return h(
      'div',
      { class: 'actions' },
      h('button', {
        type: 'button',
        class: 'secondary',
        text: 'Annul entry',
        'data-scan-id': scan.scan_id,
        onClick: () => open(scan),
      }),
    );
  }

  return { dialog, feedback, control };
}
