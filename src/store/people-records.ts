import type { AuditVia, Role } from '../domain/roles.ts';
import type { Page } from './records.ts';

/** A person of the organization (table `users`). Times are stored instants (see `toStored`). */
export interface UserRecord {
  user_id: string;
  /** Lower-cased, trimmed: one person per address. */
  email: string;
  name: string;
  role: Role;
  /** The events a supervisor or viewer may see; null: every event. */
  events: string[] | null;
  disabled_at: string | null;
  /** scrypt hash (see `src/domain/passwords.ts`); null until a password is set. */
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** A one-time invitation link's secret, kept as a digest. */
export interface InviteRecord {
  invite_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A person's link to a single sign-on provider's subject (table `sso_links`). */
export interface SsoLinkRecord {
  /** The provider's issuer (the ID token's `iss`). */
  issuer: string;
  /** The provider's subject (the ID token's `sub`), as the provider spells it. */
  subject: string;
  created_at: string;
}

/** A personal API token (`iat_…`), kept as a digest. */
export interface ApiTokenRecord {
  token_id: string;
  token_hash: string;
  user_id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** One entry of the audit trail (table `audit_log`); `details` is a JSON object without secrets. */
export interface AuditRecord {
  at: string;
  user_id: string | null;
  actor_name: string;
  via: AuditVia;
  action: string;
  target: string | null;
  eid: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

export interface AuditQuery {
  eid: string | null;
  user_id: string | null;
  limit: number;
  /** The `seq` of the last entry of the previous page (entries come newest first). */
  before: number | null;
}

export type AuditPage = Page<AuditRecord & { seq: number }>;
