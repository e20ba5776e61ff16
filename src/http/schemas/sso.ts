import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { empty, ErrorEnvelope, errorExample, errors, json, NoAuth } from './common.ts';
import { RetryAfterHeader } from './responses.ts';

const consoleRoute = { tags: ['console'], security: NoAuth };
const Location = { Location: Type.String({ description: 'where the browser goes next' }) };

export const signInOptionsSchema = {
  ...consoleRoute,
  operationId: 'getSignInOptions',
  summary: 'How one may sign in to the console',
  description:
    'Asked by the sign-in page before anyone is signed in: `sso` is true when single sign-on is configured ' +
    '(`OIDC_ISSUER_URL`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`), and the page then offers **Sign in with SSO**.',
  response: {
    200: json(
      'The ways to sign in',
      named(
        'SignInOptions',
        Type.Object(
          {
            password: Type.Boolean({ description: 'always true: email and password (and the admin token)' }),
            sso: Type.Boolean({ description: 'whether GET /admin/v1/sso/start leads to the provider' }),
          },
          { description: 'The ways to sign in to the console' },
        ),
      ),
    ),
    ...errors(429, 500),
  },
};

const providerDown = errorExample('UNAVAILABLE', 'the single sign-on provider does not answer; retry later', {
  retry_after_seconds: 5,
});

export const startSsoSchema = {
  ...consoleRoute,
  operationId: 'startSso',
  summary: 'Single sign-on: go to the OpenID Connect provider',
  description:
    'A browser navigation, not a call: starts an authorization code flow with PKCE, state and nonce, kept ' +
    '10 minutes for one use, and redirects to the provider. The cookie `issuer_sso_state` (HttpOnly, ' +
    'SameSite=Lax, Path=/admin/v1/sso/callback) ties the answer to this browser.',
  response: {
    302: empty("Redirect to the provider's authorization endpoint", Location),
    404: json('NOT_FOUND: single sign-on is not configured on this issuer', ErrorEnvelope),
    ...errors(429, 500),
    503: json(
      'UNAVAILABLE: the provider does not answer (or its discovery document is unusable); retry after Retry-After',
      ErrorEnvelope,
      {
        headers: RetryAfterHeader,
        examples: { UNAVAILABLE: { summary: 'UNAVAILABLE', value: providerDown } },
      },
    ),
  },
};

const CallbackValue = Type.String({ maxLength: 4096 });

export const finishSsoSchema = {
  ...consoleRoute,
  operationId: 'finishSso',
  summary: "Single sign-on: the provider's answer",
  description:
    'The redirect URI registered at the provider (`<BASE_URL>/admin/v1/sso/callback`). Exchanges the code, ' +
    'checks the ID token and matches a person by their subject, or the first time by their verified email: then sets the console session ' +
    'cookie, as signing in with a password does, and redirects to `/console/`. Otherwise no session, and ' +
    'a redirect to `/console/#sso_error=<reason>`: `expired` (unknown, used or expired attempt, or another ' +
    "browser's), `denied` (the provider answered an error), `failed` (the code exchange or the ID token's " +
    'checks failed), `unavailable` (the provider did not answer), `unverified` (no email, or not verified), ' +
    '`unknown` (nobody has this email), `linked` (the person with this email is linked to another subject ' +
    'of the provider) or `disabled`. A person is linked to the provider’s subject at their first single ' +
    'sign-on and found by it afterwards.',
  querystring: Type.Object(
    {
      code: Type.Optional(CallbackValue),
      state: Type.Optional(CallbackValue),
      error: Type.Optional(CallbackValue),
      error_description: Type.Optional(CallbackValue),
      iss: Type.Optional(CallbackValue),
    },
    { additionalProperties: true },
  ),
  response: {
    302: empty('Redirect to the console: signed in, or `#sso_error=<reason>`', Location),
    ...errors(400, 404, 429, 500),
  },
};
