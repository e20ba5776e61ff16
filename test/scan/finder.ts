/** Driving **Find by name** as staff do, for the web scanner's tests. */
import type { Page } from 'playwright-core';
import { admin, type RunningIssuer } from './harness.ts';

/** A web scanner link of an enrolment token that lets its scanner find holders by name. */
export async function searchingLink(issuer: RunningIssuer, eid: string): Promise<string> {
  const answer = await admin<{ web_scanner_url: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {
    allow_search: true,
  });
  return answer.web_scanner_url;
}

/** The **Find by name** field. */
export const finder = (page: Page) => page.getByLabel('Find by name');

/** A holder found, as the button that chooses them. */
export const holderButton = (page: Page, name: string) => page.getByRole('button', { name: new RegExp(name) });

/** The question before a holder found by name is let in. */
export const question = (page: Page) => page.getByRole('dialog', { name: 'Admit this holder?' });

/** Answers the question before a holder found by name is let in: Admit or Cancel. Returns its text. */
export async function answer(page: Page, choice: 'Admit' | 'Cancel'): Promise<string> {
  const dialog = question(page);
  await dialog.waitFor({ timeout: 5000 });
  const text = ((await dialog.textContent()) ?? '').replace(/\s+/g, ' ');
  await dialog.getByRole('button', { name: choice, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
  return text;
}

/** Types as staff do, a key at a time (the search waits for a pause). */
export async function typeName(page: Page, text: string): Promise<void> {
  await finder(page).fill('');
  await finder(page).pressSequentially(text, { delay: 40 });
}
