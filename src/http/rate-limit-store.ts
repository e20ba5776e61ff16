import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

type Counted = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Counted) => void;

/** What @fastify/rate-limit asks of a store (its stores are CommonJS constructors without types). */
interface LimitStore {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  read?(key: string, callback: Callback, timeWindow: number, max: number): void;
}
type StoreConstructor = new (...args: unknown[]) => LimitStore;

const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as StoreConstructor;
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as StoreConstructor;

/** How often a fallen-back instance asks Redis whether it answers again. */
const PROBE_INTERVAL_MS = 2_000;

/** Where the counters live, with what the gauge and the log are told when that changes. */
export interface SharedLimitsOptions {
  redis: Redis;
  nameSpace: string;
  /** Entries of the in-process fallback's LRU. */
  cache: number;
  onShared: (shared: boolean) => void;
  warn: (message: string, error?: Error) => void;
  info: (message: string) => void;
}

/**
 * Rate-limit counters in Redis, shared by every instance, while Redis answers; each instance's own
 * counters while it does not (a venue's gates keep working and keep being limited). The first failed
 * Redis call turns this instance to its own counters with one warning; a probe every 2 s turns it back
 * once Redis answers a PING, so limits are shared again within seconds of Redis returning. A call that
 * fails on the way is counted in process instead: no request fails or waits for Redis's sake beyond the
 * client's command timeout.
 */
export class SharedRateLimits {
  private readonly shared: LimitStore;
  private readonly local: LimitStore;
  private usingRedis = true;
  private probe: NodeJS.Timeout | null = null;

  constructor(private readonly options: SharedLimitsOptions) {
    this.shared = new RedisStore(false, false, options.redis, options.nameSpace);
    this.local = new LocalStore(false, false, options.cache);
    options.onShared(true);
  }

  /** Whether counters live in Redis right now. */
  get isShared(): boolean {
    return this.usingRedis;
  }

  /** The store class @fastify/rate-limit constructs (it calls `new store(params)`): every instance is this one. */
  pluginStore(): FastifyRateLimitStoreCtor {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    return function PluginStore() {
      return self.asStore();
    } as unknown as FastifyRateLimitStoreCtor;
  }

  private asStore(): LimitStore & FastifyRateLimitStore {
    return {
      incr: (key, callback, timeWindow, max) => this.count('incr', key, callback, timeWindow, max),
      read: (key, callback, timeWindow, max) => this.count('read', key, callback, timeWindow, max),
      child: () => this.asStore(),
    };
  }

  private count(method: 'incr' | 'read', key: string, callback: Callback, timeWindow: number, max: number): void {
    const local = () => this.local[method]!(key, callback, timeWindow, max);
    if (!this.usingRedis || this.options.redis.status !== 'ready') {
      if (this.usingRedis) this.fallBack(new Error(`Redis connection is ${this.options.redis.status}`));
      return local();
    }
    this.shared[method]!(
      key,
      (error, result) => {
        if (!error) return callback(null, result);
        this.fallBack(error);
        local();
      },
      timeWindow,
      max,
    );
  }

  private fallBack(error: Error): void {
    if (!this.usingRedis) return;
    this.usingRedis = false;
    this.options.onShared(false);
    this.options.warn("Redis does not answer: rate limits use this instance's own counters until it does", error);
    this.probe = setInterval(() => void this.tryRedis(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private async tryRedis(): Promise<void> {
    if (this.options.redis.status !== 'ready') return;
    try {
      await this.options.redis.ping();
    } catch {
      return;
    }
    if (this.usingRedis) return;
    this.usingRedis = true;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    this.options.onShared(true);
    this.options.info('Redis answers again: rate limits are shared by every instance');
  }

  /** Stops the probe (the app is closing). */
  close(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }
}
