import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { calendarsKept, eventDayOf, localTimeOf } from '../src/event-days.ts';
import { formattersKept, spelledZone } from '../src/zone-clock.ts';
import { canonicalZone, databaseNames } from '../src/zone-names.ts';

const TZDATA = '/usr/share/zoneinfo/tzdata.zi';

const platformKnows = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** `name` with each letter in a random case. */
const anyCase = (name: string): string =>
  [...name].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');

describe('zone names as the time-zone database spells them', () => {
  it('every name of the list is a zone the platform knows, and every zone the platform offers is in it', () => {
    const names = databaseNames();
    assert.ok(names.length > 550, `only ${names.length} names`);
    assert.deepEqual(
      names.filter((name) => !platformKnows(name)),
      [],
    );
    assert.deepEqual(
      Intl.supportedValuesOf('timeZone').filter((zone) => canonicalZone(zone) !== zone),
      [],
    );
  });

  it("holds every name of this machine's time-zone database that the platform knows", (t) => {
    if (!existsSync(TZDATA)) return t.skip(`no ${TZDATA} here`);
    const names = readFileSync(TZDATA, 'utf8')
      .split('\n')
      .filter((line) => /^[ZL] /.test(line))
      .map((line) => line.split(' ')[line.startsWith('Z') ? 1 : 2]!);
    assert.deepEqual(
      names.filter((name) => platformKnows(name) && canonicalZone(name) !== name),
      [],
    );
  });

  it('a name in any case is spelled as the database spells it, a link as the link (not its zone)', () => {
    assert.equal(canonicalZone('america/argentina/buenos_aires'), 'America/Argentina/Buenos_Aires');
    assert.equal(canonicalZone('aMeRICa/ARGENTINA/buenos_AIRES'), 'America/Argentina/Buenos_Aires');
    assert.equal(canonicalZone('America/Buenos_Aires'), 'America/Buenos_Aires');
    assert.equal(canonicalZone('etc/gmt+1'), 'Etc/GMT+1');
    assert.equal(canonicalZone('america/port-au-prince'), 'America/Port-au-Prince');
    assert.equal(canonicalZone('utc'), 'UTC');
    assert.equal(canonicalZone('us/pacific'), 'US/Pacific');
  });

  it("names only the platform knows (its aliases) are not the database's", () => {
    for (const alias of ['PST', 'BST', 'IST', 'SystemV/EST5', 'US/Pacific-New', 'Mars/Olympus', '']) {
      assert.equal(canonicalZone(alias), undefined, alias);
    }
    assert.equal(spelledZone('PST'), 'PST', 'a stored alias is answered as stored');
    assert.equal(spelledZone('europe/BERLIN'), 'Europe/Berlin');
  });
});

describe('the caches of zones are kept by canonical name', () => {
  it('10,000 spellings of one zone keep one formatter and one calendar', () => {
    const instant = Date.UTC(2026, 6, 1, 12);
    const zone = 'America/Argentina/Buenos_Aires';
    const expected = localTimeOf(new Date(instant), zone);
    const day = eventDayOf(new Date(instant), { timezone: zone, day_starts_at: '06:00' });
    const [formatters, calendars] = [formattersKept(), calendarsKept()];
    for (let i = 0; i < 10_000; i += 1) {
      const spelling = anyCase(zone);
      assert.deepEqual(localTimeOf(new Date(instant), spelling), expected);
      assert.equal(eventDayOf(new Date(instant), { timezone: spelling, day_starts_at: '06:00' }), day);
    }
    assert.equal(formattersKept(), formatters, 'no formatter for another spelling');
    assert.equal(calendarsKept(), calendars, 'no calendar for another spelling');
  });
});
