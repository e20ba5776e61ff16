/**
 * The PassKit web service Apple Wallet calls (`<BASE_URL>/wallet/apple/v1/`), as Apple documents it (see
 * docs/delivery.md). Apple's protocol, not this issuer's API: validated here, left out of the API
 * reference, as the holders' pages are.
 */
import { Type } from '@sinclair/typebox';
import { empty, errors, json, media } from './common.ts';

const problem = (text: string) => ({ 'x-problem': text });

/** Apple's device library identifier: letters, digits, dots, underscores and hyphens. */
const DeviceId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9._-]+$',
  ...problem('must be 1 to 128 letters, digits, dots, underscores or hyphens'),
});
const PassTypeId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9._-]+$',
  ...problem('must be a Pass Type ID such as pass.org.example.tickets'),
});
/** The pass's serial number: the ticket's tid. */
const Serial = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  ...problem('must be a ticket id: 1 to 64 letters, digits, underscores or hyphens'),
});

const WALLET = { hide: true };

const registrationParams = Type.Object({ deviceId: DeviceId, passTypeId: PassTypeId, serial: Serial });

export const registerDeviceSchema = {
  ...WALLET,
  operationId: 'registerApplePassDevice',
  summary: 'Register a device for a pass’s updates (called by Apple Wallet)',
  description:
    '`Authorization: ApplePass <authenticationToken>` of the pass. 201 for a new registration, 200 when the ' +
    'device was registered already (its push token is replaced).',
  params: registrationParams,
  body: Type.Object({
    pushToken: Type.String({
      minLength: 1,
      maxLength: 256,
      pattern: '^[0-9A-Za-z]+$',
      ...problem('must be the APNs push token Wallet sends: 1 to 256 letters or digits'),
    }),
  }),
  response: {
    200: empty('Already registered'),
    201: empty('Registered'),
    ...errors(400, 401, 404, 429, 500, 503),
  },
};

export const unregisterDeviceSchema = {
  ...WALLET,
  operationId: 'unregisterApplePassDevice',
  summary: 'Unregister a device from a pass’s updates (called by Apple Wallet)',
  params: registrationParams,
  response: { 200: empty('Unregistered (or was not registered)'), ...errors(400, 401, 404, 429, 500, 503) },
};

export const listSerialsSchema = {
  ...WALLET,
  operationId: 'listApplePassSerials',
  summary: 'The serial numbers of a device’s passes that changed (called by Apple Wallet)',
  params: Type.Object({ deviceId: DeviceId, passTypeId: PassTypeId }),
  querystring: Type.Object({
    passesUpdatedSince: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        pattern: '^[0-9A-Za-z:.+-]+$',
        ...problem('must be the lastUpdated tag of an earlier answer'),
      }),
    ),
  }),
  response: {
    200: json(
      'The passes that changed since the tag (all of them without one)',
      Type.Object({
        serialNumbers: Type.Array(Type.String()),
        lastUpdated: Type.String({ description: 'the tag to send as passesUpdatedSince next time' }),
      }),
    ),
    204: empty('None changed'),
    ...errors(400, 404, 429, 500, 503),
  },
};

export const latestPassSchema = {
  ...WALLET,
  operationId: 'getLatestApplePass',
  summary: 'The latest version of a pass (called by Apple Wallet)',
  description: '`Last-Modified` is the pass’s last change; `If-Modified-Since` not older than it answers 304.',
  params: Type.Object({ passTypeId: PassTypeId, serial: Serial }),
  response: {
    200: media('The pass', ['application/vnd.apple.pkpass']),
    304: empty('Not modified since If-Modified-Since'),
    ...errors(400, 401, 404, 429, 500, 503),
  },
};

/** Entries logged per request, and characters per entry: a device cannot fill the log. */
export const MAX_LOG_ENTRIES = 20;
export const MAX_LOG_ENTRY_CHARS = 1000;

export const walletLogSchema = {
  ...WALLET,
  operationId: 'logApplePassErrors',
  summary: 'Messages Apple Wallet reports about this web service',
  description: `Logged at info: at most ${MAX_LOG_ENTRIES} entries, each cut at ${MAX_LOG_ENTRY_CHARS} characters.`,
  body: Type.Object({ logs: Type.Array(Type.String({ maxLength: 100_000 }), { maxItems: 1000 }) }),
  response: { 200: empty('Logged'), ...errors(400, 413, 429, 500) },
};
