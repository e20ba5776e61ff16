import type { RuleRefusal, RuleRefusalReason } from '@ticket-issuer/protocol';
import { toWire } from './time.ts';

/* How the issuer words a refusal by the entry rules: the 403's message, its details, the scan log's reason. */

export const RULE_MESSAGES: Record<RuleRefusalReason, string> = {
  not_valid_now: 'this ticket is not valid at this time',
  entry_limit_reached: 'this ticket has reached its entry limit',
  too_soon: 'too soon after this ticket’s last entry',
};

/** A refusal's instants in the answered form (no zero milliseconds), as every answer writes them. */
export function wireRefusal(refusal: RuleRefusal): RuleRefusal {
  switch (refusal.reason) {
    case 'not_valid_now':
      return { ...refusal, valid_from: toWire(refusal.valid_from) };
    case 'too_soon':
      return { ...refusal, last_entry_at: toWire(refusal.last_entry_at), next_entry_at: toWire(refusal.next_entry_at) };
    default:
      return refusal;
  }
}

/** The scan log's reason for a refusal by the entry rules, in plain words. */
export function ruleReason(refusal: RuleRefusal): string {
  switch (refusal.reason) {
    case 'not_valid_now':
      return `not valid now (event day ${refusal.event_day})`;
    case 'entry_limit_reached': {
      const days = refusal.max_days === null ? '' : `, ${refusal.days_used} of ${refusal.max_days} days used`;
      return `entry limit reached (${refusal.entries} entries, ${refusal.entries_today} on ${refusal.event_day}${days})`;
    }
    case 'too_soon':
      return `too soon (last entry ${refusal.last_entry_at}, next from ${refusal.next_entry_at})`;
  }
}
