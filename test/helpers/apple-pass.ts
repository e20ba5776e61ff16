import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../src/http/context.ts';
import { PASS_TYPE_ID } from './apple-certs.ts';

/** The key-encryption key of every test issuer (see testIssuer). */
const TEST_KEK = Buffer.alloc(32, 7);

/**
 * A pass's authentication token as docs/decisions.md defines it, computed here rather than taken from
 * the code under test: HMAC-SHA256 of `apple-pass:<tid>` under HKDF-SHA256(KEK, no salt,
 * "apple-wallet-pass-authentication"), base64url.
 */
export function expectedPassToken(tid: string, kek = TEST_KEK): string {
  const key = Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), 'apple-wallet-pass-authentication', 32));
  return createHmac('sha256', key).update(`apple-pass:${tid}`).digest('base64url');
}

export const passAuth = (tid: string) => ({ authorization: `ApplePass ${expectedPassToken(tid)}` });

/** Asks the web service for the latest pass, as Wallet does. */
export function fetchPass(app: App, tid: string, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'GET',
    url: `/wallet/apple/v1/passes/${PASS_TYPE_ID}/${tid}`,
    headers: { ...passAuth(tid), ...headers },
  });
}

export interface OpenedPass {
  files: Record<string, Buffer>;
  passJson: Record<string, unknown>;
  manifest: Record<string, string>;
}

/**
 * Unzips a .pkpass, checks that the manifest lists the SHA-1 of every other file and nothing else, and
 * that `openssl smime -verify` accepts the signature over manifest.json with `caFile` as the only root.
 */
export function openPass(pkpass: Buffer, caFile: string): OpenedPass {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-pkpass-'));
  try {
    writeFileSync(join(dir, 'pass.pkpass'), pkpass);
    const unzipped = spawnSync('unzip', ['-q', join(dir, 'pass.pkpass'), '-d', join(dir, 'out')], { encoding: 'utf8' });
    assert.equal(unzipped.status, 0, unzipped.stderr);
    const names = readdirSync(join(dir, 'out'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(join(dir, 'out').length + 1));
    const files = Object.fromEntries(names.map((name) => [name, readFileSync(join(dir, 'out', name))]));
    const manifest = JSON.parse(files['manifest.json']!.toString('utf8')) as Record<string, string>;
    const others = names.filter((name) => name !== 'manifest.json' && name !== 'signature').sort();
    assert.deepEqual(Object.keys(manifest).sort(), others);
    for (const name of others) {
      assert.equal(manifest[name], createHash('sha1').update(files[name]!).digest('hex'), `digest of ${name}`);
    }
    const verified = spawnSync(
      'openssl',
      [
        'smime',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        join(dir, 'out', 'signature'),
        '-content',
        join(dir, 'out', 'manifest.json'),
        '-CAfile',
        caFile,
        '-out',
        '/dev/null',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(verified.status, 0, verified.stderr);
    return { files, passJson: JSON.parse(files['pass.json']!.toString('utf8')) as Record<string, unknown>, manifest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The certificates inside a PKCS #7 signature, by subject (openssl pkcs7 -print_certs). */
export function signatureCertificates(signature: Buffer): string[] {
  const printed = spawnSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs', '-noout'], {
    input: signature,
    encoding: 'utf8',
  });
  assert.equal(printed.status, 0, printed.stderr);
  return printed.stdout.split('\n').filter((line) => line.startsWith('subject='));
}
