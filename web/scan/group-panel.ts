/**
 * **Check in group (N)**: after an **Admit** of a ticket whose group (its order) has others not inside,
 * a button names how many; pressed, it lists them with a checkbox each (all checked), and **Admit
 * checked** checks the checked ones in, one check-in each, judged on its own by the rules on this
 * phone and sent by the queue's upload (at once while online). Each member's verdict is listed in
 * words; the panel goes at the next scan. Offline, the group comes from the roster kept on this phone.
 */
import { type FoundHolder, othersToCheckIn, type GroupAnswer, type ScanResult } from '@ticket-issuer/scanner';

/** What the panel needs from the page. */
export interface GroupHost {
  /** The ticket's group: the issuer's answer, else the roster kept on this phone (`source: 'roster'`). */
  group(tid: string): Promise<GroupAnswer>;
  checkIn(members: FoundHolder[]): Promise<ScanResult[]>;
}

export class GroupPanel {
  /** The admit the panel is for: an answer for an older one is dropped. */
  private asked = 0;

  constructor(
    private readonly element: HTMLElement,
    private readonly host: GroupHost,
  ) {}

  /** After an Admit: offers the rest of the group, if the issuer names any. */
  async offer(tid: string): Promise<void> {
    const asked = ++this.asked;
    this.clear(false);
    let others: FoundHolder[];
    let fromPhone: boolean;
    try {
      const group = await this.host.group(tid);
      others = othersToCheckIn(group, tid);
      fromPhone = group.source === 'roster';
    } catch {
      return; // No group to offer (no answer, or an issuer without groups): the admit stands alone.
    }
    if (asked !== this.asked || others.length === 0) return;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = `Check in group (${others.length})`;
    button.addEventListener('click', () => this.list(others, fromPhone));
    this.element.replaceChildren(button);
  }

  /** Withdraws the offer (the next scan). */
  clear(bump = true): void {
    if (bump) this.asked += 1;
    this.element.replaceChildren();
  }

  private list(others: FoundHolder[], fromPhone: boolean): void {
    const form = document.createElement('form');
    form.className = 'group-list';
    const legend = document.createElement('p');
    legend.textContent = fromPhone
      ? 'The others of this order, from the list kept on this phone (offline): each is checked here and sent when the issuer answers.'
      : 'The others of this order:';
    const boxes = others.map((member, i) => {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = true;
      box.id = `group-member-${i}`;
      label.append(box, ` ${member.holder_name} · ${member.ticket_type}`);
      return { member, box, label };
    });
    const admit = document.createElement('button');
    admit.type = 'submit';
    admit.className = 'admit';
    admit.textContent = 'Admit checked';
    form.append(legend, ...boxes.map((b) => b.label), admit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      admit.disabled = true;
      const chosen = boxes.filter((b) => b.box.checked).map((b) => b.member);
      void this.admit(chosen);
    });
    this.element.replaceChildren(form);
  }

  private async admit(members: FoundHolder[]): Promise<void> {
    const asked = this.asked;
    const results = await this.host.checkIn(members);
    if (asked !== this.asked) return;
    const list = document.createElement('ul');
    list.className = 'group-results';
    list.setAttribute('aria-label', 'Group check-in');
    results.forEach((result, i) => {
      const li = document.createElement('li');
      const word = result.verdict === 'admit' ? 'Admit' : `Reject (${result.reason.replace(/_/g, ' ')})`;
      li.textContent = `${word} · ${members[i]!.holder_name}`;
      list.append(li);
    });
    this.element.replaceChildren(list);
  }
}
