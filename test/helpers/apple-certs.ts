import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PASS_TYPE_ID = 'pass.test.tickets';
export const TEAM_ID = 'TEAM123456';
export const APNS_KEY_ID = 'KEY1234567';

/** The files a test organizer would get from Apple, made with openssl: all paths, and where they live. */
export interface AppleFiles {
  dir: string;
  /** The root standing in for Apple's WWDR intermediate (the signature's chain ends here in tests). */
  wwdr: string;
  passCert: string;
  passKey: string;
  /** The pass key encrypted with `passphrase`. */
  encryptedPassKey: string;
  passphrase: string;
  /** An APNs auth key (.p8: PKCS #8, P-256) and its public half. */
  apnsKey: string;
  apnsPublicKey: string;
  /** Settings naming them all. */
  env: Record<string, string>;
  remove(): void;
}

function openssl(args: string[]): void {
  const made = spawnSync('openssl', args, { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
}

/** A WWDR-like CA, a pass certificate it issued (UID the Pass Type ID, OU the team), its key, and an APNs key. */
export function makeAppleFiles(): AppleFiles {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-apple-'));
  const at = (name: string) => join(dir, name);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Test WWDR/O=Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    at('wwdr-key.pem'),
    '-out',
    at('wwdr.pem'),
  ]);
  openssl([
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('pass-key.pem'),
    '-out',
    at('pass.csr'),
    '-subj',
    `/UID=${PASS_TYPE_ID}/CN=Pass Type ID: ${PASS_TYPE_ID}/OU=${TEAM_ID}/O=Test Organizer`,
  ]);
  writeFileSync(at('ext.cnf'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n');
  openssl([
    'x509',
    '-req',
    '-in',
    at('pass.csr'),
    '-CA',
    at('wwdr.pem'),
    '-CAkey',
    at('wwdr-key.pem'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    at('ext.cnf'),
    '-out',
    at('pass.pem'),
  ]);
  const passphrase = 'organizer passphrase 1';
  openssl([
    'pkey',
    '-in',
    at('pass-key.pem'),
    '-aes-256-cbc',
    '-passout',
    `pass:${passphrase}`,
    '-out',
    at('pass-key-encrypted.pem'),
  ]);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at('apns.p8')]);
  openssl(['pkey', '-in', at('apns.p8'), '-pubout', '-out', at('apns-public.pem')]);
  const files = {
    dir,
    wwdr: at('wwdr.pem'),
    passCert: at('pass.pem'),
    passKey: at('pass-key.pem'),
    encryptedPassKey: at('pass-key-encrypted.pem'),
    passphrase,
    apnsKey: at('apns.p8'),
    apnsPublicKey: at('apns-public.pem'),
  };
  return {
    ...files,
    env: {
      APPLE_PASS_TYPE_ID: PASS_TYPE_ID,
      APPLE_TEAM_ID: TEAM_ID,
      APPLE_PASS_CERT: files.passCert,
      APPLE_PASS_KEY: files.passKey,
      APPLE_WWDR_CERT: files.wwdr,
      APNS_KEY: files.apnsKey,
      APNS_KEY_ID: APNS_KEY_ID,
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
