import type { Page } from 'playwright-core';
import { admin, type RunningIssuer } from './harness.ts';

/** A password of the contract's 12 characters and more. */
export const PASSWORD = 'correct horse battery staple';

/** The invitation token in an invite_url (what follows `#invite=`). */
export const inviteTokenOf = (inviteUrl: string): string =>
  decodeURIComponent(new URL(inviteUrl).hash.replace(/^#invite=/, ''));

/**
 * An invite_url as the running issuer serves it: the test issuer's BASE_URL (http://127.0.0.1) names
 * no port, so the link's path and hash are opened at the port it listens on.
 */
export function atIssuer(issuer: RunningIssuer, inviteUrl: string): string {
  const link = new URL(inviteUrl);
  return `${issuer.url}${link.pathname}${link.hash}`;
}

export interface TestPerson {
  user_id: string;
  email: string;
  name: string;
}

/**
 * A person invited through the admin API (the admin token) whose invitation is accepted with
 * `PASSWORD`, as if they had opened the link: ready to sign in with email and password.
 */
export async function addPerson(
  issuer: RunningIssuer,
  person: { email: string; name: string; role: string; events?: string[] },
): Promise<TestPerson> {
  const created = await admin<{ user_id: string; invite_url: string }>(issuer, 'POST', '/users', person);
  const res = await fetch(`${issuer.url}/admin/v1/invitations/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invite_token: inviteTokenOf(created.invite_url), password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`accept: ${res.status} ${await res.text()}`);
  return { user_id: created.user_id, email: person.email, name: person.name };
}

/**
 * A picture of the page, for a person to look at, when CONSOLE_SCREENSHOTS names a directory
 * (`CONSOLE_SCREENSHOTS=/tmp npx tsx --test test/console/people.test.ts`); nothing otherwise.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.CONSOLE_SCREENSHOTS;
  if (!dir) return;
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
  // What shows first, for a page too long to read whole at a glance.
  await page.screenshot({ path: `${dir}/${name}-top.png` });
}
