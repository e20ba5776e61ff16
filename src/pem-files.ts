/** PEM files named by settings, read and checked at start: errors name the setting and the file, never what it holds. */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-read.ts';

/** The file at `path`, which the setting `name` names; unreadable: a ConfigError naming both. */
export function readNamedFile(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(`${name} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** A certificate and its private key (settings `certName` and `keyName`): readable, PEM, and the key the certificate's. */
export function readCertificateAndKey(
  certName: string,
  certPath: string,
  keyName: string,
  keyPath: string,
): { cert: Buffer; key: Buffer } {
  const cert = readNamedFile(certName, certPath);
  const key = readNamedFile(keyName, keyPath);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`${certName} ${certPath} is not a PEM certificate`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(`${keyName} ${keyPath} is not a PEM private key (or it is encrypted)`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError(`${keyName} ${keyPath} is not the private key of ${certName} ${certPath}`);
  }
  return { cert, key };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * One or more authority certificates in one PEM file (the old and the new one side by side while an
 * authority is rotated): each must be a certificate.
 */
export function readAuthorities(name: string, path: string): Buffer {
  const file = readNamedFile(name, path);
  const blocks = file.toString('latin1').match(PEM_CERTIFICATE) ?? [];
  const valid = blocks.length > 0 && blocks.every(parses);
  if (!valid) throw new ConfigError(`${name} ${path} is not a PEM certificate (or a list of them)`);
  return file;
}

function parses(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}
