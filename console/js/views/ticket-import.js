import { api } from '../api.js';
import { batches, readTicketsCsv } from '../csv.js';
import { field, h, message, replace } from '../dom.js';

const SHOWN_PROBLEMS = 50;

/**
 * The CSV import: every line is checked first; only a clean file is sent, in all-or-nothing requests
 * of up to 10,000 tickets. A failure part-way says exactly which lines were imported and which not.
 */
export function ticketImport(eid, onImported) {
  const input = h('input', { type: 'file', accept: '.csv,text/csv', onChange: () => importFile() });
  const outcome = h('div');
  const node = h(
    'div',
    { class: 'import' },
    field('Import tickets (CSV)', input, 'Header: holder_name,ticket_type, and optionally expires_at (ISO 8601 UTC).'),
    outcome,
  );

  async function importFile() {
    const file = input.files?.[0];
    if (!file) return;
    replace(outcome, message('info', `Reading ${file.name}…`));
    const { tickets, problems } = readTicketsCsv(await file.text(), globalThis.Papa);
    input.value = '';
    if (problems.length > 0) return replace(outcome, problemReport(file.name, problems));
    let imported = 0;
    for (const batch of batches(tickets)) {
      try {
        await api('POST', `/events/${encodeURIComponent(eid)}/tickets`, {
          tickets: batch.map(({ line: _line, ...ticket }) => ticket),
        });
        imported += batch.length;
      } catch (error) {
        onImported();
        return replace(outcome, partialReport(tickets, imported, batch, error));
      }
    }
    replace(outcome, message('success', `Imported ${imported} tickets`));
    onImported();
  }

  return node;
}

function problemReport(fileName, problems) {
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
  );
}

/** A batch refused by the issuer: nothing of it was stored; earlier batches were. */
function partialReport(tickets, imported, batch, error) {
  const fieldName = error.details?.fields?.[0]?.field ?? '';
  const index = /^tickets(?:\[(\d+)\]|\.(\d+))/.exec(fieldName);
  const at = index ? batch[Number(index[1] ?? index[2])]?.line : undefined;
  const first = batch[0].line;
  const last = tickets[tickets.length - 1].line;
  return message(
    'error',
    h('p', {
      text:
        imported > 0
          ? `Imported ${imported} tickets (lines ${tickets[0].line}–${tickets[imported - 1].line}).`
          : 'Nothing was imported.',
    }),
    h('p', {
      text: `Lines ${first}–${last} were not imported: ${error.message}${at ? ` (line ${at})` : ''}.`,
    }),
  );
}
