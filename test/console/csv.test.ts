import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Papa from 'papaparse';

interface CsvModule {
  readTicketsCsv: (
    text: string,
    papa: typeof Papa,
  ) => { tickets: Record<string, unknown>[]; problems: { line: number; message: string }[] };
  batches: <T>(items: T[], size?: number) => T[][];
}
// The console's browser modules, loaded as they are served (plain ES modules, no build).
const csvPath = '../../console/js/csv.js';
const { readTicketsCsv, batches } = (await import(csvPath)) as CsvModule;

const read = (text: string) => readTicketsCsv(text, Papa);

describe('console CSV import: reading and checking a file before anything is sent', () => {
  it('reads holder_name,ticket_type and the optional expires_at; trims; skips blank lines', () => {
    const { tickets, problems } = read(
      '\uFEFFholder_name,ticket_type,expires_at\r\n Ada Lovelace ,VIP,\r\n\r\n"Turing, Alan",GA,2030-07-01T23:00:00Z\r\n',
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(tickets, [
      { holder_name: 'Ada Lovelace', ticket_type: 'VIP', line: 2 },
      { holder_name: 'Turing, Alan', ticket_type: 'GA', expires_at: '2030-07-01T23:00:00Z', line: 4 },
    ]);
  });

  it('names the file’s own line of each problem, counting lines inside quoted fields', () => {
    const { problems } = read('holder_name,ticket_type\n"Two\nlines",GA\n,GA\nOnly\nOk,GA,extra\n');
    assert.deepEqual(
      problems.map((p) => p.line),
      [2, 4, 5, 6],
    );
    assert.match(problems[1]!.message, /holder_name is empty/);
    assert.match(problems[2]!.message, /expected 2 fields/);
  });

  it('refuses a wrong header, impossible dates, over-long fields and an empty file', () => {
    assert.equal(read('name,type\nAda,GA\n').problems[0]!.line, 1);
    assert.match(
      read('holder_name,ticket_type,expires_at\nAda,GA,2030-02-30T00:00:00Z\n').problems[0]!.message,
      /expires_at/,
    );
    assert.match(read(`holder_name,ticket_type\n${'x'.repeat(201)},GA\n`).problems[0]!.message, /longer than 200/);
    assert.match(read('holder_name,ticket_type\n').problems[0]!.message, /no tickets/);
  });

  it('reads an optional external_id column, in any column order, and refuses an empty, long or repeated one', () => {
    const { tickets, problems } = read('external_id,ticket_type,holder_name\n ORD-1 ,GA,Ada\nORD-2,VIP,Alan\n');
    assert.deepEqual(problems, []);
    assert.deepEqual(tickets, [
      { holder_name: 'Ada', ticket_type: 'GA', external_id: 'ORD-1', line: 2 },
      { holder_name: 'Alan', ticket_type: 'VIP', external_id: 'ORD-2', line: 3 },
    ]);
    const bad = read(`holder_name,ticket_type,external_id\nA,GA,\nB,GA,${'x'.repeat(101)}\nC,GA,K\nD,GA,K\n`);
    assert.deepEqual(
      bad.problems.map((p) => `${p.line}: ${p.message}`),
      [
        '2: external_id is empty',
        '3: external_id is longer than 100 characters',
        '5: external_id "K" is on line 4 too',
      ],
    );
    assert.match(read('holder_name,ticket_type,ticket_type\nA,GA,GA\n').problems[0]!.message, /header/);
    assert.match(read('holder_name,ticket_type,seat\nA,GA,12\n').problems[0]!.message, /header/);
  });

  it('reads optional valid_from, attention (true/false, yes/no, 1/0 in any case; empty is no) and checkin_text', () => {
    const { tickets, problems } = read(
      [
        'holder_name,ticket_type,valid_from,attention,checkin_text',
        'A,GA,2030-06-07T06:00:00Z,TRUE,Wheelchair',
        'B,GA,,no,',
        'C,GA,,Yes,',
        'D,GA,,0,"Press, badge at desk"',
        'E,GA,,,',
        'F,GA,,1,',
      ].join('\n'),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      tickets.map(({ line: _line, holder_name: _h, ticket_type: _t, ...rest }) => rest),
      [
        { valid_from: '2030-06-07T06:00:00Z', attention: true, checkin_text: 'Wheelchair' },
        { attention: false },
        { attention: true },
        { attention: false, checkin_text: 'Press, badge at desk' },
        {},
        { attention: true },
      ],
    );
    const bad = read(
      [
        'holder_name,ticket_type,expires_at,valid_from,attention,checkin_text',
        'A,GA,,tomorrow,,',
        'B,GA,2030-06-07T00:00:00Z,2030-06-07T00:00:00Z,,',
        'C,GA,,,maybe,',
        'D,GA,,,toString,',
        `E,GA,,,,${'x'.repeat(201)}`,
      ].join('\n'),
    );
    assert.deepEqual(
      bad.problems.map((p) => `${p.line}: ${p.message}`),
      [
        '2: valid_from "tomorrow" is not an ISO 8601 UTC time such as 2026-07-01T23:00:00Z',
        '3: valid_from must be before expires_at',
        '4: attention "maybe" is not one of true, false, yes, no, 1, 0 (or empty)',
        '5: attention "toString" is not one of true, false, yes, no, 1, 0 (or empty)',
        '6: checkin_text is longer than 200 characters',
      ],
    );
  });

  it('splits large files into requests of at most 10,000 tickets', () => {
    assert.deepEqual(
      batches(Array.from({ length: 25_001 }, (_, i) => i)).map((b) => b.length),
      [10_000, 10_000, 5_001],
    );
  });
});
