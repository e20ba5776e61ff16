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
 * Redis call, or the connection closing, turns this instance to its own counters with one warning; a
 * probe every 2 s turns it back once Redis answers a PING (or at once when the client connects again),
 * so limits are shared again within seconds of Redis returning. A call that fails on the way is
 * counted in process instead: no request fails or waits for Redis's sake beyond the client's command
 * timeout.
 */
export class SharedRateLimits {
  private readonly shared: LimitStore;
  private readonly local: LimitStore;
  private usingRedis = false;
  /** Whether the present outage was already told (one warning an outage). */
  private warned = false;
  private probe: NodeJS.Timeout | null = null;

  constructor(private readonly options: SharedLimitsOptions) {
    this.shared = new RedisStore(false, false, options.redis, options.nameSpace);
    this.local = new LocalStore(false, false, options.cache);
    // Counters are shared while Redis is connected: from the start when it is, else from its first
    // answer; meanwhile the gauge says 0 and the first failed probe warns.
    options.redis.on('ready', () => void this.tryRedis());
    // A lost connection (a Redis failover, a restart) shows at once, even on an instance without traffic.
    options.redis.on('close', () => this.fallBack(new Error('the connection to Redis closed')));
    if (options.redis.status === 'ready') {
      this.usingRedis = true;
      options.onShared(true);
    } else {
      options.onShared(false);
      this.startProbing();
      void this.tryRedis();
    }
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
    if (!this.usingRedis || this.closed) return;
    this.usingRedis = false;
    this.options.onShared(false);
    this.warn(error);
    this.startProbing();
  }

  private warn(error: Error): void {
    if (this.warned) return;
    this.warned = true;
    this.options.warn("Redis does not answer: rate limits use this instance's own counters until it does", error);
  }

  private startProbing(): void {
    if (this.probe) return;
    this.probe = setInterval(() => void this.tryRedis(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private async tryRedis(): Promise<void> {
    if (this.usingRedis || this.closed) return;
    try {
      if (this.options.redis.status !== 'ready') throw new Error(`Redis connection is ${this.options.redis.status}`);
      await this.options.redis.ping();
    } catch (error) {
      // Told once an outage; the probe started at the app's start waits one round before it tells.
      if (this.probeRounds++ > 0) this.warn(error as Error);
      return;
    }
    if (this.usingRedis || this.closed) return;
    this.usingRedis = true;
    this.probeRounds = 0;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    this.options.onShared(true);
    if (this.warned) this.options.info('Redis answers again: rate limits are shared by every instance');
    this.warned = false;
  }

  private probeRounds = 0;
  private closed = false;

  /** Stops the probe (the app is closing). */
  close(): void {
    this.closed = true;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }
}
