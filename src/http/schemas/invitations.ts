import { Type } from '@sinclair/typebox';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/passwords.ts';
import { named } from './components.ts';
import { errors, json, NoAuth, Strict } from './common.ts';

export const acceptInvitationSchema = {
  tags: ['console'],
  security: NoAuth,
  operationId: 'acceptInvitation',
  summary: 'Set your password with the one-time invitation token of your invite_url',
  description:
    'The `invite_token` is what follows `#invite=` in the `invite_url`. It works once, within 72 hours; a used, ' +
    'expired or unknown one is 400 `INVALID_REQUEST` (ask an owner for a new one). Sign in afterwards with ' +
    '`POST /admin/v1/session` `{email, password}`. Setting a password ends the sessions opened with the old one.',
  body: named(
    'AcceptInvitationRequest',
    Strict({
      invite_token: Type.String({
        minLength: 1,
        maxLength: 128,
        description: '`inv_…`',
        'x-problem': 'must be the invite token of an invite_url',
      }),
      password: Type.String({
        minLength: PASSWORD_MIN_LENGTH,
        maxLength: PASSWORD_MAX_LENGTH,
        description: `at least ${PASSWORD_MIN_LENGTH} characters`,
        'x-problem': `must be at least ${PASSWORD_MIN_LENGTH} characters (at most ${PASSWORD_MAX_LENGTH})`,
      }),
    }),
  ),
  response: {
    200: json(
      'The password is set',
      named(
        'AcceptedInvitation',
        Type.Object(
          { user_id: Type.String(), email: Type.String() },
          { description: 'The person whose password is set' },
        ),
      ),
    ),
    ...errors(400, 413, 415, 429, 500),
  },
};
