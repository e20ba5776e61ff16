import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { PdfPool } from '../../src/holder/pdf-pool.ts';
import { readPdf } from '../helpers/pdf-read.ts';

const pool = new PdfPool(1);
after(() => pool.close());

describe('the PDF threads: bounded, shedding load with 503', () => {
  it('draws a PDF from its steps on a thread', async () => {
    const pdf = await pool.draw('A title', [{ text: 'Hello', font: 'Helvetica', size: 12, gap: 0 }]);
    const read = readPdf(pdf);
    assert.equal(read.pages, 1);
    assert.equal(read.text, 'Hello');
  });

  it('a PDF asked for while every thread is busy is refused at once with UNAVAILABLE and a retry time', async () => {
    const steps = Array.from({ length: 400 }, (_, i) => ({ text: `line ${i}`, font: 'Helvetica', size: 1, gap: 0 }));
    const first = pool.draw('first', steps);
    await assert.rejects(pool.draw('second', steps), (error: { code?: string; details?: Record<string, unknown> }) => {
      assert.equal(error.code, 'UNAVAILABLE');
      assert.equal(error.details?.retry_after_seconds, 1);
      return true;
    });
    assert.equal(readPdf(await first).pages >= 1, true);
    // Once the thread is free again, the next one is drawn.
    assert.equal(readPdf(await pool.draw('third', steps.slice(0, 1))).text, 'line 0');
  });
});
