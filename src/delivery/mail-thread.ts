import { createRequire } from 'node:module';
import { PDF_DRAW_SOURCE, pdfThreadModules } from '../holder/pdf-thread.ts';

/**
 * The code of the mail's thread (plain JavaScript, run with `eval`, as the PDF threads'): each job is
 * one email, made and sent whole there, so the event loop only hands over a few strings and gets the
 * end back. The thread draws the ticket's PDF (its QR code included), builds the MIME message around it
 * with nodemailer's own `MailComposer` (as its transport would build it) and sends it through its SMTP
 * transport (a pool of a few connections, each wait bounded), the SMTP exchange and its socket writes
 * included. Several jobs may be under way at once (`id` tells their answers apart): the drawing takes
 * turns on the thread, the sends wait on their sockets side by side.
 *
 * A job: `{ id, title, steps, parts, startBy }` (`startBy`: the epoch ms after which a built email is not
 * sent, so an attempt ends inside its lease). Its answer, one of: `{ id, unbuilt: text }` (the PDF or the
 * message failed), `{ id, late: true }`, `{ id, timedOut: true }` (no answer within the send timeout),
 * `{ id, sent: { rejected, response } }`, `{ id, failed: {…the error's code, responseCode, response…} }`.
 * nodemailer is loaded by this thread only, at its first email: an issuer that sends no mail never loads it.
 */
export const MAIL_THREAD_SOURCE = `${PDF_DRAW_SOURCE}
let transport = null;
const smtp = () => {
  if (transport === null) transport = require(workerData.nodemailer).createTransport(workerData.transport);
  return transport;
};
let MailComposer = null;
const compose = (mail, pdf, callback) => {
  try {
    MailComposer = MailComposer || require(workerData.mailComposer);
    const { filename, ...fields } = mail;
    const message = new MailComposer({
      ...fields,
      attachments: [{ filename, content: pdf, contentType: 'application/pdf' }],
    }).compile();
    const envelope = message.getEnvelope();
    message.build((error, raw) => callback(error, { envelope, raw }));
  } catch (error) {
    callback(error);
  }
};
// What the event loop needs of a send's error to classify it (the same fields nodemailer sets).
const errorFields = (error) => ({
  code: error && error.code,
  responseCode: error && error.responseCode,
  response: error && error.response,
  message: errorText(error),
  permanent: error && error.permanent,
  originalCode: error && error.originalCode,
});
const send = (built, reply) => {
  let timer = null;
  const end = (answer) => {
    if (timer === null) return;
    clearTimeout(timer);
    timer = null;
    reply(answer);
  };
  timer = setTimeout(() => end({ timedOut: true }), workerData.sendTimeoutMs);
  smtp()
    .sendMail(built)
    .then(
      (info) => end({ sent: { rejected: Array.isArray(info.rejected) ? info.rejected.length : 0, response: info.response } }),
      (error) => end({ failed: errorFields(error) }),
    );
};
parentPort.on('message', (job) => {
  const reply = (answer) => parentPort.postMessage({ id: job.id, ...answer });
  drawPdf(job.title, job.steps, (error, pdf) => {
    if (error) return reply({ unbuilt: errorText(error) });
    compose(job.parts, pdf, (error, built) => {
      if (error) return reply({ unbuilt: errorText(error) });
      if (Date.now() > job.startBy) return reply({ late: true });
      try {
        send(built, reply);
      } catch (error) {
        reply({ failed: errorFields(error) });
      }
    });
  });
});
`;

/** How the thread reaches the SMTP server: SMTP_URL, the pool's size and every wait's bound (ms). */
export interface SmtpSettings {
  smtpUrl: string;
  maxConnections: number;
  sendTimeoutMs: number;
}

/** The mail thread's `workerData`: its modules (resolved here, not loaded) and its SMTP transport's options. */
export function mailThreadData(settings: SmtpSettings): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  return {
    ...pdfThreadModules(),
    nodemailer: require.resolve('nodemailer'),
    mailComposer: require.resolve('nodemailer/lib/mail-composer'),
    sendTimeoutMs: settings.sendTimeoutMs,
    transport: {
      url: settings.smtpUrl,
      pool: true,
      maxConnections: settings.maxConnections,
      maxMessages: 100,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      dnsTimeout: 10_000,
      logger: false,
    },
  };
}
