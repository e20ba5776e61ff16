import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStoreUnavailable } from '../../src/store/unavailable.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isStoreUnavailable: a dependency that cannot serve, told apart from a bad request or a bug', () => {
  const unavailable: [string, Error][] = [
    ['PostgreSQL restarting (57P01)', coded('57P01', 'terminating connection due to administrator command')],
    ['PostgreSQL starting up (57P03)', coded('57P03', 'the database system is starting up')],
    ['a connection exception (08006)', coded('08006')],
    ['too many connections (53300)', coded('53300')],
    ["PostgreSQL's disk full (53100)", coded('53100')],
    ['a statement cancelled by statement_timeout (57014)', coded('57014')],
    ['a refused connection', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', coded('ECONNRESET')],
    ['node-postgres: connection terminated', new Error('Connection terminated unexpectedly')],
    ['node-postgres: pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['node-postgres: statement timeout', new Error('Query read timeout')],
    ['SQLite disk full', coded('SQLITE_FULL', 'database or disk is full')],
    ['SQLite I/O error (extended code)', coded('SQLITE_IOERR_WRITE', 'disk I/O error')],
    ['an fsync on a full disk', coded('ENOSPC')],
    ['an fsync on a failing disk', coded('EIO')],
    ['the cause of a wrapping error', Object.assign(new Error('batch failed'), { cause: coded('ECONNRESET') })],
  ];
  for (const [name, error] of unavailable) {
    it(`${name} is unavailable`, () => assert.equal(isStoreUnavailable(error), true));
  }

  const notUnavailable: [string, unknown][] = [
    ['a unique violation (23505)', coded('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error (42601)', coded('42601')],
    ['a serialization failure (40001)', coded('40001')],
    ['a SQLite constraint', coded('SQLITE_CONSTRAINT_PRIMARYKEY')],
    ['a TypeError (a bug)', new TypeError("Cannot read properties of undefined (reading 'tid')")],
    ['a string', 'ECONNRESET'],
    ['null', null],
  ];
  for (const [name, error] of notUnavailable) {
    it(`${name} is not`, () => assert.equal(isStoreUnavailable(error), false));
  }
});
