/**
 * A real SMTP server for the mail tests (the `smtp-server` library on a free loopback port): it keeps
 * every message it accepts, raw, and can be told to answer 451 (try later) or 550 (refused) to the
 * next messages, to check a login, or to be down (connection refused), then up again on the same port.
 */
import { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** How the server answers a message's data: accepted, or an SMTP error reply. */
export type Answer = 'accept' | { code: number; message: string };

export class TestSmtpServer {
  readonly received: Received[] = [];
  /** The answer to each message's data; `accept` unless a test says otherwise. */
  answer: (index: number) => Answer = () => 'accept';
  /** When set, the answer by the message's recipients instead (several messages may arrive at once). */
  answerFor: ((to: string[]) => Answer) | null = null;
  /** Messages answered so far, accepted or not. */
  answered = 0;
  /** Milliseconds to wait before answering a message's data (a slow server). */
  delayMs = 0;
  private server: SMTPServer | null = null;

  private constructor(
    public port: number,
    private readonly login: { user: string; password: string } | null,
  ) {}

  static async start(login: { user: string; password: string } | null = null): Promise<TestSmtpServer> {
    const server = new TestSmtpServer(0, login);
    await server.up();
    return server;
  }

  /** `smtp://` URL of this server (with the login, percent-encoded, when it asks for one). */
  get url(): string {
    const auth = this.login ? `${encodeURIComponent(this.login.user)}:${encodeURIComponent(this.login.password)}@` : '';
    return `smtp://${auth}127.0.0.1:${this.port}`;
  }

  /** Listens (again) on the same port. */
  async up(): Promise<void> {
    const login = this.login;
    const server = new SMTPServer({
      disabledCommands: login ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      allowInsecureAuth: true,
      // Going down closes the open connections at once (the issuer's pool keeps some).
      closeTimeout: 100,
      authOptional: login === null,
      logger: false,
      onAuth(auth, _session, callback) {
        if (login && auth.username === login.user && auth.password === login.password) {
          callback(null, { user: auth.username });
        } else callback(new Error('535 5.7.8 authentication failed'));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const index = this.answered++;
          const to = session.envelope.rcptTo.map((r) => r.address);
          const answer = this.answerFor ? this.answerFor(to) : this.answer(index);
          const reply = () => {
            if (answer === 'accept') {
              this.received.push({
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to,
                raw: Buffer.concat(chunks).toString('utf8'),
              });
              callback();
            } else {
              const error = new Error(answer.message) as Error & { responseCode: number };
              error.responseCode = answer.code;
              callback(error);
            }
          };
          if (this.delayMs > 0) setTimeout(reply, this.delayMs);
          else reply();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    server.on('error', () => undefined);
    // A suite's server never keeps the test process alive by itself.
    server.server.unref();
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening: connections are refused until `up()`. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.down();
  }
}

/** One MIME part: its headers (names in lower case, folded lines joined) and its decoded body. */
export interface MimePart {
  headers: Map<string, string>;
  body: Buffer;
  parts: MimePart[];
}

function parseHeaders(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): Buffer {
  if (encoding?.toLowerCase() === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding?.toLowerCase() === 'quoted-printable') {
    const bytes = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1');
  }
  return Buffer.from(body, 'utf8');
}

/** Parses a raw message into its parts, multipart ones recursively (enough for what nodemailer writes). */
export function parseMime(raw: string): MimePart {
  const split = raw.indexOf('\r\n\r\n');
  const headers = parseHeaders(split < 0 ? raw : raw.slice(0, split));
  const body = split < 0 ? '' : raw.slice(split + 4);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.toLowerCase().startsWith('multipart/') || boundary === undefined) {
    return { headers, body: decodeBody(body, headers.get('content-transfer-encoding')), parts: [] };
  }
  const pieces = body.split(`--${boundary}`).slice(1);
  const parts = pieces
    .filter((piece) => !piece.startsWith('--'))
    .map((piece) => parseMime(piece.replace(/^\r\n/, '').replace(/\r\n$/, '')));
  return { headers, body: Buffer.alloc(0), parts };
}

/** Every leaf part of a message, in order. */
export function leaves(part: MimePart): MimePart[] {
  return part.parts.length === 0 ? [part] : part.parts.flatMap(leaves);
}

/** A header's text with RFC 2047 encoded words decoded (UTF-8, B or Q). */
export function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([BQ])\?([^?]*)\?=\s*/gi, (_, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text
            .replace(/_/g, ' ')
            .replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
