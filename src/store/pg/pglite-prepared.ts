import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import { LRUCache } from 'lru-cache';

interface Statement {
  name: string;
  /** Parameter type OIDs as the server inferred them: they pick PGlite's serializer per value. */
  paramTypes: number[];
}

/** Statements kept prepared per database; beyond it the least recently used is closed. */
const CAPACITY = 256;

/**
 * Named prepared statements for PGlite, each execution one protocol round trip.
 *
 * PGlite's query() parses and plans every statement anew and talks to the WASM backend five times
 * (parse, describe, bind, describe, execute), about half of a short statement's time
 * (docs/search.md). So each statement text is parsed once under a name, and executions send
 * Bind + Describe + Execute + Sync in one message.
 * Postgres re-analyses a prepared statement when a table it uses changes, so renames and
 * migrations are seen; a statement whose result shape changed is re-prepared.
 *
 * PgliteDb runs every statement through it, inside a transaction or not; after DDL (exec) it
 * forgets them all, so no statement outlives a schema change inside a transaction.
 * Callers serialise access (PgliteDb holds its lock around every statement and transaction):
 * execProtocol does not take PGlite's own locks.
 */
export class PglitePrepared {
  private next = 0;
  private readonly statements: LRUCache<string, Statement>;
  /** Evicted statements, closed with the next execution's message. */
  private toClose: string[] = [];

  constructor(private readonly pglite: PGlite) {
    this.statements = new LRUCache<string, Statement>({ max: CAPACITY, dispose: (s) => this.toClose.push(s.name) });
  }

  /**
   * Runs `sql`, preparing it on first use. Inside a transaction a failed statement aborts the
   * transaction, so there is no second try: the caller's transaction fails and rolls back.
   */
  async query<R>(sql: string, params: readonly unknown[], options: { inTransaction?: boolean } = {}): Promise<R[]> {
    const statement = this.statements.get(sql) ?? (await this.prepare(sql));
    try {
      return await this.execute<R>(statement, params);
    } catch (err) {
      // 0A000 "cached plan must not change result type": a table's columns changed under it.
      if ((err as { code?: string }).code !== '0A000') throw err;
      this.statements.delete(sql);
      if (options.inTransaction) throw err;
      return this.execute<R>(await this.prepare(sql), params);
    }
  }

  /** Closes every prepared statement (with the next message): after DDL, so none is stale. */
  forgetAll(): void {
    this.statements.clear();
  }

  private async prepare(sql: string): Promise<Statement> {
    const name = `aisle_${++this.next}`;
    const { messages } = await this.pglite.execProtocol(
      Buffer.concat([
        ...this.closing(),
        protocol.serialize.parse({ name, text: sql }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ]),
    );
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    this.statements.set(sql, statement);
    return statement;
  }

  private async execute<R>(statement: Statement, params: readonly unknown[]): Promise<R[]> {
    const serializers = this.pglite.serializers;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = serializers[statement.paramTypes[i]!];
      return serialize ? serialize(value) : String(value);
    });
    const { messages } = await this.pglite.execProtocol(
      Buffer.concat([
        ...this.closing(),
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.describe({ type: 'P' }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
    );
    return (parse.parseResults(messages, this.pglite.parsers)[0]?.rows ?? []) as R[];
  }

  private closing(): Uint8Array[] {
    const out = this.toClose.map((name) => protocol.serialize.close({ type: 'S', name }));
    this.toClose = [];
    return out;
  }
}
