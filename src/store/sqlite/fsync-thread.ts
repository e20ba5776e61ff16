import { fsync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * The thread that makes SQLite's commits durable: one fsync at a time, on a worker thread of its own
 * (`fsyncSync` there; descriptors belong to the process, so the worker syncs the store's own). On
 * libuv's pool an fsync queued behind whatever else ran there (password hashes, file reads, DNS):
 * during a flood of sign-ins commits waited seconds for a thread. One thread serves every store of
 * the process, started at the first fsync and stopped after IDLE_STOP_MS without one (a thread holds
 * a JavaScript heap of its own, about 12 MiB: an idle issuer, whose start-up commits a few writes,
 * gives it back); it keeps the process alive only while an fsync runs. If the thread cannot start or
 * dies, fsyncs go back to libuv's pool.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { fsyncSync } = require('node:fs');
parentPort.on('message', ({ id, fd }) => {
  try {
    fsyncSync(fd);
    parentPort.postMessage({ id });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

type Waiting = { resolve: () => void; reject: (error: Error) => void };

/** How long the thread stays without an fsync before it is stopped. */
export const IDLE_STOP_MS = 10_000;

export class FsyncThread {
  private worker: Worker | null = null;
  private broken = false;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly idleStopMs = IDLE_STOP_MS) {}

  /** Whether the thread runs now (tests and benchmarks read it). */
  get running(): boolean {
    return this.worker !== null;
  }

  sync(fd: number): Promise<void> {
    const worker = this.broken ? null : this.start();
    if (worker === null) return onLibuv(fd);
    return new Promise((resolve, reject) => {
      const id = ++this.nextId;
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) worker.ref();
      worker.postMessage({ id, fd });
    });
  }

  private start(): Worker | null {
    if (this.worker !== null) return this.worker;
    try {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.unref();
      worker.on('message', (answer: { id: number; error?: { message: string; code?: string } }) => {
        const waiting = this.waiting.get(answer.id);
        this.waiting.delete(answer.id);
        if (this.waiting.size === 0) {
          worker.unref();
          this.stopWhenIdle(worker);
        }
        if (waiting === undefined) return;
        if (answer.error === undefined) waiting.resolve();
        else waiting.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      });
      const fail = (error: Error) => this.fail(worker, error);
      worker.on('error', fail);
      worker.on('exit', () => fail(new Error('the fsync thread ended')));
      this.worker = worker;
      return worker;
    } catch {
      this.broken = true;
      return null;
    }
  }

  /** Stops the thread once idleStopMs pass without an fsync (each answer that leaves none waiting re-arms it). */
  private stopWhenIdle(worker: Worker): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.worker !== worker || this.waiting.size > 0) return;
      // No longer this store's thread before it ends: its exit is not a failure, the next fsync starts another.
      this.worker = null;
      void worker.terminate();
    }, this.idleStopMs);
    this.idleTimer.unref();
  }

  /** The thread is gone: what waited on it fails (the commit's caller sees a failed fsync), the next use starts another. */
  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}

function onLibuv(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error === null ? resolve() : reject(error))));
}

const thread = new FsyncThread();

/** An fsync of the descriptor on the process's fsync thread. */
export const fsyncOnOwnThread = (fd: number): Promise<void> => thread.sync(fd);
