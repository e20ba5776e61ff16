import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

const HOST = '127.0.0.1';

/** Redis's wire format for what the fake Sentinel answers. */
const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
const array = (items: string[]) => `*${items.length}\r\n${items.join('')}`;

/**
 * The commands in `buffer` (arrays of bulk strings, as a client sends them) and the bytes left over
 * of one not whole yet.
 */
function readCommands(buffer: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const start = at;
    const line = (): string | null => {
      const end = buffer.indexOf('\r\n', at);
      if (end < 0) return null;
      const text = buffer.toString('latin1', at, end);
      at = end + 2;
      return text;
    };
    const header = line();
    if (header === null || !header.startsWith('*')) return { commands, rest: buffer.subarray(start) };
    const command: string[] = [];
    for (let i = Number(header.slice(1)); i > 0; i--) {
      const size = line();
      if (size === null || at + Number(size.slice(1)) + 2 > buffer.length) {
        return { commands, rest: buffer.subarray(start) };
      }
      command.push(buffer.toString('utf8', at, at + Number(size.slice(1))));
      at += Number(size.slice(1)) + 2;
    }
    commands.push(command);
  }
}

/**
 * A Sentinel the test speaks for, so that what a real one does at a moment nobody can choose happens
 * when the test says: it names `master` for `masterName`, can hold its answers (`hold`, `release`),
 * and publishes `+switch-master` to its subscribers when told (`switchMaster`). It speaks only what
 * a Sentinel's clients ask: `SENTINEL get-master-addr-by-name`, `SENTINEL sentinels` (no other
 * Sentinel), `SUBSCRIBE`, and `+OK` to anything else.
 */
export class FakeSentinel {
  private holding = false;
  private readonly held: (() => void)[] = [];
  private readonly subscribers = new Set<Socket>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly masterName: string,
    public master: number,
  ) {}

  static async start(masterName: string, master: number): Promise<FakeSentinel> {
    const server = createServer();
    server.listen(0, HOST);
    await once(server, 'listening');
    const sentinel = new FakeSentinel(server, (server.address() as { port: number }).port, masterName, master);
    server.on('connection', (socket) => sentinel.serve(socket));
    return sentinel;
  }

  /** Answers to `get-master-addr-by-name` wait from now until `release`. */
  hold(): void {
    this.holding = true;
  }

  /** How many `get-master-addr-by-name` wait for an answer. */
  get waiting(): number {
    return this.held.length;
  }

  /** How many connections listen for `+switch-master`. */
  get listening(): number {
    return this.subscribers.size;
  }

  /** Answers what waits, naming the master as it is now, and answers at once again. */
  release(): void {
    this.holding = false;
    for (const answer of this.held.splice(0)) answer();
  }

  /** Names `to` as the master from now on, and tells the subscribers, as a Sentinel after a failover. */
  switchMaster(to: number): void {
    const message = `${this.masterName} ${HOST} ${this.master} ${HOST} ${to}`;
    this.master = to;
    for (const socket of this.subscribers)
      socket.write(array([bulk('message'), bulk('+switch-master'), bulk(message)]));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.subscribers.delete(socket);
    });
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const { commands, rest } = readCommands(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const command of commands) this.answer(socket, command);
    });
  }

  private answer(socket: Socket, [name = '', ...args]: string[]): void {
    const verb = `${name} ${args[0] ?? ''}`.toLowerCase();
    if (verb === 'sentinel get-master-addr-by-name') {
      const answer = () => {
        if (socket.writable) socket.write(array([bulk(HOST), bulk(String(this.master))]));
      };
      if (this.holding) this.held.push(answer);
      else answer();
    } else if (verb === 'sentinel sentinels') {
      socket.write(array([]));
    } else if (name.toLowerCase() === 'subscribe') {
      this.subscribers.add(socket);
      args.forEach((channel, i) => socket.write(array([bulk('subscribe'), bulk(channel), `:${i + 1}\r\n`])));
    } else {
      socket.write('+OK\r\n');
    }
  }
}
