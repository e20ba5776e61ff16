/**
 * Certificate authorities and certificates of the test's own, made at test time with openssl exactly as
 * docs/deploy.md ("Certificates and passwords") makes the cluster's: an EC P-256 key per certificate,
 * the addresses as subjectAltName, each certificate good for serving and for being a client.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, writeFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { join } from 'node:path';
import { Agent, setGlobalDispatcher } from 'undici';

export interface IssuedCertificate {
  /** The certificate (PEM). */
  cert: string;
  /** Its private key (PEM, mode 0600, owned by the owner given). */
  key: string;
  /** Certificate and key in one file, as HAProxy's `crt` takes them (mode 0600). */
  bundle: string;
}

type Owner = { uid: number; gid: number };

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });

export class Authority {
  private constructor(
    private readonly dir: string,
    private readonly name: string,
  ) {}

  /** A new authority in `dir` (its key mode 0600): `<name>-ca.key`, `<name>-ca.pem`. */
  static make(dir: string, name: string): Authority {
    openssl(
      [
        'req',
        '-x509',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${name}-ca.key`,
        '-out',
        `${name}-ca.pem`,
        '-days',
        '2',
        '-subj',
        `/CN=ticket-issuer ${name} CA`,
      ],
      dir,
    );
    chmodSync(join(dir, `${name}-ca.key`), 0o600);
    chmodSync(join(dir, `${name}-ca.pem`), 0o644);
    return new Authority(dir, name);
  }

  /** The authority's certificate (PEM), which every party trusts. */
  get ca(): string {
    return join(this.dir, `${this.name}-ca.pem`);
  }

  /** A certificate for `addresses` (IP addresses), signed by this authority; its files readable by `owner` only. */
  issue(name: string, addresses: string[], owner?: Owner): IssuedCertificate {
    const base = `${this.name}-${name}`;
    openssl(
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${base}.key`,
        '-out',
        `${base}.csr`,
        '-subj',
        `/CN=${name}`,
      ],
      this.dir,
    );
    writeFileSync(
      join(this.dir, `${base}.ext`),
      `subjectAltName=${addresses.map((address) => `IP:${address}`).join(',')}\n` +
        'extendedKeyUsage=serverAuth,clientAuth\n',
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        this.ca,
        '-CAkey',
        join(this.dir, `${this.name}-ca.key`),
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        `${base}.ext`,
        '-out',
        `${base}.pem`,
      ],
      this.dir,
    );
    const issued = {
      cert: join(this.dir, `${base}.pem`),
      key: join(this.dir, `${base}.key`),
      bundle: join(this.dir, `${base}.bundle.pem`),
    };
    writeFileSync(issued.bundle, readFileSync(issued.cert, 'utf8') + readFileSync(issued.key, 'utf8'));
    for (const [file, mode] of [
      [issued.cert, 0o644],
      [issued.key, 0o600],
      [issued.bundle, 0o600],
    ] as const) {
      chmodSync(file, mode);
      if (owner) chownSync(file, owner.uid, owner.gid);
    }
    return issued;
  }
}

/**
 * This process's fetch trusts `caFile` beside the usual authorities, as a scanner given the cluster's
 * certificate would: what HAProxy serves is verified, name included.
 */
export function trustInThisProcess(caFile: string): void {
  setGlobalDispatcher(new Agent({ connect: { ca: [...rootCertificates, readFileSync(caFile, 'utf8')] } }));
}
