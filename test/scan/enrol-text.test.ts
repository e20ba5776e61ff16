import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IssuerHttpError, IssuerNetworkError, ScannerError } from '@ticket-issuer/scanner';
import { enrolmentProblem } from '../../web/scan/enrol-text.ts';

const invalidToken = (details: Record<string, unknown> = {}) =>
  new IssuerHttpError(400, 'INVALID_TOKEN', 'the enrolment token is malformed, expired or already used', details);

describe('the words of a failed enrolment', () => {
  it('says a setup code was used or expired, and where a new one comes from, never the status or code', () => {
    const said = enrolmentProblem(invalidToken());
    assert.match(said, /^Enrolment failed\. This setup code was already used or has expired/);
    assert.match(said, /Ask the organizer for a new one \(console: the event’s Scanners, New enrolment token\)/);
    assert.doesNotMatch(said, /400|INVALID_TOKEN|malformed/);
  });

  it('names which, when the issuer says', () => {
    assert.match(enrolmentProblem(invalidToken({ reason: 'used' })), /This setup code was already used: each one/);
    assert.match(enrolmentProblem(invalidToken({ reason: 'expired' })), /This setup code has expired\. Ask/);
    const revoked = new IssuerHttpError(403, 'TOKEN_REVOKED', 'the enrolment token was revoked by the organizer');
    assert.match(enrolmentProblem(revoked), /This setup code was revoked in the console\. Ask/);
    assert.doesNotMatch(enrolmentProblem(revoked), /403|TOKEN_REVOKED/);
  });

  it('tells a network, a busy issuer and a pasted text that is no setup code apart', () => {
    const network = new IssuerNetworkError('ISSUER_UNREACHABLE', 'fetch failed', 'not_sent');
    assert.match(
      enrolmentProblem(network),
      /The issuer did not answer\. Check that this phone is on the venue’s network/,
    );
    const limited = new IssuerHttpError(429, 'RATE_LIMITED', 'slow down', {}, 30);
    assert.match(enrolmentProblem(limited), /wait 30 s, then try again/);
    assert.match(enrolmentProblem(new IssuerHttpError(503, 'UNAVAILABLE', 'down')), /try again in a moment/);
    const pasted = new ScannerError('INVALID_SETUP_URI', 'not a ticket-issuer setup URI: iss is missing');
    assert.match(enrolmentProblem(pasted), /That is not a setup code\. Paste the Web scanner link/);
    const elsewhere = new ScannerError(
      'INVALID_SETUP_URI',
      'this setup code is for the issuer at https://a.example: open the scanner from https://a.example/scan/',
    );
    assert.match(
      enrolmentProblem(elsewhere),
      /^Enrolment failed\. This setup code is for the issuer at https:\/\/a\.example/,
    );
  });

  it('says that waiting scans of another event hold a new enrolment back', () => {
    const held = new ScannerError('ALREADY_ENROLLED', 'this state directory holds 2 queued scan(s)');
    assert.match(enrolmentProblem(held, 2), /2 scans of the current event have not reached the issuer yet/);
    assert.match(enrolmentProblem(held, 1), /1 scan of the current event has not reached/);
    assert.doesNotMatch(enrolmentProblem(held, 2), /not used/);
    const unused = new ScannerError('ALREADY_ENROLLED', 'queued scan(s) of event E …; the setup code was not used');
    assert.match(enrolmentProblem(unused, 2), /another event\. The setup code was not used: it still works\./);
  });
});
