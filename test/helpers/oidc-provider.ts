/**
 * A real OpenID Connect provider (oidc-provider) on 127.0.0.1 for the single sign-on tests: one
 * confidential client that must use PKCE, accounts with verified and unverified emails, and pages of
 * its own (login with Email and Password, then consent) that a browser or `signInAtProvider` drives.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface ProviderAccount {
  /** The subject; the login page's Email finds the account by it or by its `email`. */
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  password: string;
}

export interface TestProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accounts: ProviderAccount[];
  /** Listen there (to come back on the port of a provider that was stopped); else any free port. */
  port?: number;
  /** Put email and email_verified in the ID token too (by default they come from user info only). */
  emailInIdToken?: boolean;
}

export interface TestProvider {
  issuer: string;
  port: number;
  close(): Promise<void>;
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>` +
  `<body><main><h1>${escape(title)}</h1>${body}</main></body></html>`;

function loginPage(uid: string, problem: string | null): string {
  return page(
    'Test provider: log in',
    (problem ? `<p role="alert">${escape(problem)}</p>` : '') +
      `<form method="post" action="/interaction/${uid}/login">` +
      '<label for="email">Email</label> <input id="email" name="email" type="email" required> ' +
      '<label for="password">Password</label> <input id="password" name="password" type="password" required> ' +
      '<button type="submit">Log in</button></form>',
  );
}

function consentPage(uid: string): string {
  return page(
    'Test provider: allow access',
    '<p>The ticket issuer asks for your email address and name.</p>' +
      `<form method="post" action="/interaction/${uid}/confirm"><button type="submit">Allow</button></form>`,
  );
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/** Starts the provider; its issuer is `http://127.0.0.1:<port>`. */
export async function startProvider(options: TestProviderOptions): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map(options.accounts.map((a) => [a.sub, a]));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: options.emailInIdToken !== true,
    features: { devInteractions: { enabled: false } },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test provider cookie key, not a secret of the issuer'] },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-provider-key', use: 'sig', alg: 'RS256' }] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: account.email, email_verified: account.email_verified, name: account.name }),
      };
    },
  });
  const oidc = provider.callback();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/interaction\/([^/?]+)(?:\/(login|confirm))?$/.exec((req.url ?? '').split('?')[0]!);
    if (!match) return oidc(req, res);
    interaction(req, res, match[1]!, match[2] ?? null).catch((error: Error) =>
      html(res, 500, page('Error', escape(error.message))),
    );
  });

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, step: string | null) {
    const details = await provider.interactionDetails(req, res);
    if (step === null) {
      return html(res, 200, details.prompt.name === 'login' ? loginPage(uid, null) : consentPage(uid));
    }
    if (step === 'login') {
      const form = await formOf(req);
      // The account with exactly this email or subject (two accounts may share an email), else ignoring case.
      const raw = form.get('email') ?? '';
      const account =
        options.accounts.find((a) => a.sub === raw || a.email === raw) ??
        options.accounts.find((a) => a.email.toLowerCase() === raw.toLowerCase());
      if (!account || account.password !== form.get('password')) {
        return html(res, 200, loginPage(uid, 'Wrong email or password.'));
      }
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: account.sub } },
        { mergeWithLastSubmission: false },
      );
    }
    await formOf(req);
    const accountId = details.session?.accountId;
    if (!accountId) throw new Error('consent before login');
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) ??
        new provider.Grant({ accountId, clientId: String(details.params.client_id) }))
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    return provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
  }

  return {
    issuer,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Goes through the provider's pages over HTTP, as a browser would (a cookie jar of its own, redirects
 * followed by hand): from an authorization URL, logs in with `email` and `password` and allows
 * access; answers the URL the provider sends the browser back to (the issuer's callback).
 */
export async function signInAtProvider(authorizationUrl: string, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const origin = new URL(authorizationUrl).origin;
  const send = async (url: string, form?: URLSearchParams): Promise<Response> => {
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: form.toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return res;
  };
  let url = authorizationUrl;
  for (let step = 0; step < 12; step += 1) {
    const res = await send(url);
    const location = res.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url).href;
      if (!next.startsWith(origin)) return next;
      url = next;
      continue;
    }
    const body = await res.text();
    const action = /action="([^"]+)"/.exec(body)?.[1];
    if (res.status !== 200 || action === undefined) throw new Error(`the provider answered ${res.status}: ${body}`);
    const form = action.endsWith('/login') ? new URLSearchParams({ email, password }) : new URLSearchParams();
    const posted = await send(new URL(action, url).href, form);
    const after = posted.headers.get('location');
    if (after === null) throw new Error(`the provider refused the ${action.endsWith('/login') ? 'login' : 'consent'}`);
    url = new URL(after, url).href;
  }
  throw new Error('the provider never sent the browser back');
}
