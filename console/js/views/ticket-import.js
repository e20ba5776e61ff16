import { api } from '../api.js';
import { batches, readTicketsCsv } from '../csv.js';
import { field, h, message, replace, when } from '../dom.js';
import { plural } from '../words.js';

const SHOWN_PROBLEMS = 50;
/** Rows of the file shown before the organizer confirms. */
const SHOWN_ROWS = 5;

/**
 * The CSV import: every line is checked first; a clean file is shown (how many tickets, its first
 * rows) and imported only once the organizer confirms, in all-or-nothing requests of up to 10,000
 * tickets. An `external_id` column makes a second import of the same file skip what the first made.
 * A failure part-way says exactly which lines were imported and which not.
 */
export function ticketImport(eid, onImported) {
  const input = h('input', { type: 'file', accept: '.csv,text/csv', onChange: () => readFile() });
  const outcome = h('div');
  const node = h(
    'div',
    { class: 'import' },
    field(
      'Import tickets (CSV)',
      input,
      'Header: holder_name,ticket_type, and optionally expires_at and valid_from (ISO 8601 UTC: the ticket admits from then on), external_id (your own id of each ticket: importing the file again skips the tickets already made), attention (true/false, yes/no or 1/0: gate staff take care of the holder), checkin_text (shown at the gate, at most 200 characters), email (the holder’s address, where the ticket is sent) and order_ref (the order or booking: its tickets are a group, checked in together at the gate; at most 64 characters).',
    ),
    outcome,
  );

  async function readFile() {
    const file = input.files?.[0];
    if (!file) return;
    replace(outcome, message('info', `Reading ${file.name}…`));
    const { tickets, problems, columns } = readTicketsCsv(await file.text(), globalThis.Papa);
    input.value = '';
    if (problems.length > 0) return replace(outcome, problemReport(file.name, problems, tickets.length));
    replace(outcome, preview(file.name, tickets, columns));
  }

  /** What the file holds, and the question: import it, or not. */
  function preview(fileName, tickets, columns) {
    const withIds = columns.includes('external_id');
    const confirm = h('button', {
      type: 'button',
      text: `Import ${plural(tickets.length, 'ticket')}`,
      onClick: () => importTickets(tickets, [confirm, cancel]),
    });
    const cancel = h('button', {
      type: 'button',
      class: 'secondary',
      text: 'Cancel',
      onClick: () => replace(outcome, message('info', `Nothing was imported from ${fileName}.`)),
    });
    return h(
      'div',
      { class: 'import-preview' },
      h('p', {}, h('strong', { text: `${fileName}: ${plural(tickets.length, 'ticket')} to import.` })),
      firstRows(fileName, tickets, columns),
      withIds
        ? h('p', {
            class: 'hint',
            text: 'Tickets whose external_id this event already holds are skipped, not made again.',
          })
        : message(
            'warning',
            'This file has no external_id column: importing it again would make its tickets a second time.',
          ),
      h('div', { class: 'actions' }, confirm, cancel),
    );
  }

  async function importTickets(tickets, buttons) {
    for (const button of buttons) button.disabled = true;
    let created = 0;
    let skipped = 0;
    let sent = 0;
    for (const batch of batches(tickets)) {
      try {
        const answer = await api('POST', `/events/${encodeURIComponent(eid)}/tickets`, {
          tickets: batch.map(({ line: _line, ...ticket }) => ticket),
        });
        created += answer.tickets.length;
        skipped += answer.skipped?.length ?? 0;
        sent += batch.length;
      } catch (error) {
        onImported();
        return replace(outcome, partialReport(tickets, { created, skipped, sent }, batch, error));
      }
    }
    replace(outcome, message('success', `${importedText(created, skipped)}.`));
    onImported();
  }

  return node;
}

/**
 * "Imported 3 tickets", and "2 already imported, skipped" when an import met known external_ids. The
 * first part is the contract's message, word for word for every N (scripts and tests read it).
 */
function importedText(created, skipped) {
  const done = `Imported ${created} tickets`;
  return skipped > 0 ? `${done}; ${skipped} already imported, skipped` : done;
}

/** A row's notes for the gate, in words: "Attention", its text, both, or nothing. */
const gateNotes = (ticket) =>
  [ticket.attention ? 'Attention' : null, ticket.checkin_text ?? null].filter(Boolean).join(': ');

/** The first rows, as they will be imported (dates in words); optional columns only when the file has them. */
function firstRows(fileName, tickets, columns) {
  const withIds = columns.includes('external_id');
  const withStart = columns.includes('valid_from');
  const withNotes = columns.includes('attention') || columns.includes('checkin_text');
  const withEmail = columns.includes('email');
  const withOrder = columns.includes('order_ref');
  const shown = tickets.slice(0, SHOWN_ROWS);
  const cell = (text) => h('td', { text });
  return h(
    'table',
    { class: 'rows' },
    h('caption', { text: `First ${plural(shown.length, 'row')} of ${fileName}` }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        [
          'Line',
          'Holder',
          'Type',
          'Expires',
          withIds ? 'External id' : null,
          withStart ? 'Valid from' : null,
          withNotes ? 'Gate notes' : null,
          withEmail ? 'Email' : null,
          withOrder ? 'Order' : null,
        ]
          .filter(Boolean)
          .map((heading) => h('th', { scope: 'col', text: heading })),
      ),
    ),
    h(
      'tbody',
      {},
      shown.map((ticket) =>
        h(
          'tr',
          {},
          cell(String(ticket.line)),
          cell(ticket.holder_name),
          cell(ticket.ticket_type),
          cell(ticket.expires_at ? when(ticket.expires_at) : 'never'),
          withIds ? cell(ticket.external_id) : null,
          withStart ? cell(ticket.valid_from ? when(ticket.valid_from) : 'at once') : null,
          withNotes ? cell(gateNotes(ticket) || '—') : null,
          withEmail ? cell(ticket.email ?? '—') : null,
          withOrder ? cell(ticket.order_ref ?? '—') : null,
        ),
      ),
    ),
  );
}

function problemReport(fileName, problems, fine) {
  const lines = new Set(problems.map((p) => p.line)).size;
  return message(
    'error',
    h('p', {
      text: `${fileName}: ${lines} ${lines === 1 ? 'line has' : 'lines have'} problems. Nothing was imported.`,
    }),
    h(
      'ul',
      {},
      problems.slice(0, SHOWN_PROBLEMS).map((p) => h('li', { text: `Line ${p.line}: ${p.message}` })),
      problems.length > SHOWN_PROBLEMS ? h('li', { text: `…and ${problems.length - SHOWN_PROBLEMS} more.` }) : null,
    ),
    h('p', {
      text: `${plural(fine, 'other line')} ${fine === 1 ? 'is' : 'are'} fine. Correct the file and choose it again.`,
    }),
  );
}

/** A batch refused by the issuer: nothing of it was stored; earlier batches were. */
function partialReport(tickets, { created, skipped, sent }, batch, error) {
  const fieldName = error.details?.fields?.[0]?.field ?? '';
  const index = /^tickets(?:\[(\d+)\]|\.(\d+))/.exec(fieldName);
  const at = index ? batch[Number(index[1] ?? index[2])]?.line : undefined;
  const first = batch[0].line;
  const last = tickets[tickets.length - 1].line;
  return message(
    'error',
    h('p', {
      text:
        sent > 0
          ? `${importedText(created, skipped)} (lines ${tickets[0].line}–${tickets[sent - 1].line}).`
          : 'Nothing was imported.',
    }),
    h('p', {
      text: `Lines ${first}–${last} were not imported: ${error.message}${at ? ` (line ${at})` : ''}.`,
    }),
  );
}
