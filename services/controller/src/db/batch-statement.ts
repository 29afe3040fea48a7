import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { auditLog, controllerState, exerciseReports, outbox, runs, settings } from './schema.js';

/** One statement ready for the driver; the name makes it a prepared statement per connection. */
export interface Statement {
  name: string;
  text: string;
  params: unknown[];
}

type Row = Record<string, unknown>;

/** The rows of one commit, every id already known. */
export interface BatchRows {
  state?: Row;
  settings?: Row;
  /** A run whose id was reserved earlier. */
  newRun?: Row;
  /** Run completions: the id and the columns to set. */
  closeRuns: { id: number; set: Row }[];
  audit: Row[];
  /** An exercise run's report. */
  exerciseReport?: Row;
  /** Outbox rows; the statement returns their ids as outbox_ids. */
  outbox: Row[];
  /** Earlier outbox rows to stamp published and fanned out: parallel arrays of ids and instants. */
  sentStamps?: { ids: number[]; ats: number[] };
  /** Take the id of a run a later commit creates; the statement returns it as run_id. */
  reserveRunId: boolean;
  /** Commit without waiting for the WAL flush (made durable by the next ordinary commit). */
  unflushed: boolean;
}

interface TableShape {
  ref: string;
  columns: PgColumn[];
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A table's quoted, schema-qualified name, for statements written as text. */
export function tableRef(table: PgTable): string {
  const cfg = getTableConfig(table);
  return `${cfg.schema ? `${quote(cfg.schema)}.` : ''}${quote(cfg.name)}`;
}

function shapeOf(table: PgTable, keep: (c: PgColumn) => boolean = () => true): TableShape {
  return { ref: tableRef(table), columns: getTableConfig(table).columns.filter(keep) };
}

const STATE = shapeOf(controllerState);
const SETTINGS = shapeOf(settings);
const RUNS = shapeOf(runs);
const RUN_CLOSE = shapeOf(runs, (c) =>
  ['stop_time', 'duration_seconds', 'stop_reason', 'estimated_fuel_used', 'stop_note', 'stop_value'].includes(
    c.name,
  ),
);
const RUN_ID = RUNS.columns.find((c) => c.name === 'id') as PgColumn;
const OUTBOX_REF = tableRef(outbox);
// Ids from their sequences; publication stamps are set later by the dispatcher.
const OUTBOX = shapeOf(outbox, (c) => ['event_id', 'event', 'data', 'created_at'].includes(c.name));
const AUDIT = shapeOf(auditLog, (c) => c.name !== 'id');
const EXERCISE_REPORT = shapeOf(exerciseReports, (c) => c.name !== 'id');

/** Placeholders and values in statement order, mapped the way drizzle maps them. */
class Params {
  readonly values: unknown[] = [];

  add(column: PgColumn, value: unknown): string {
    this.values.push(value === null || value === undefined ? null : column.mapToDriverValue(value));
    const n = this.values.length;
    // jsonb goes over the wire as text: both drivers then take the JSON drizzle made as it is.
    return column.getSQLType() === 'jsonb' ? `$${n}::text::jsonb` : `$${n}`;
  }

  /** A value the driver takes as it is (arrays for unnest). */
  raw(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }

  row(shape: TableShape, row: Row): string {
    return `(${shape.columns.map((c) => this.add(c, row[c.name])).join(', ')})`;
  }
}

const columnList = (shape: TableShape) => shape.columns.map((c) => quote(c.name)).join(', ');

const insert = (shape: TableShape, rows: string[]) =>
  `insert into ${shape.ref} (${columnList(shape)}) values ${rows.join(', ')}`;

function upsert(shape: TableShape, values: string): string {
  const set = shape.columns
    .filter((c) => !c.primary)
    .map((c) => `${quote(c.name)} = excluded.${quote(c.name)}`)
    .join(', ');
  return `${insert(shape, [values])} on conflict ("id") do update set ${set}`;
}

function closeRun(p: Params, close: { id: number; set: Row }): string {
  const set = RUN_CLOSE.columns.map((c) => `${quote(c.name)} = ${p.add(c, close.set[c.name])}`).join(', ');
  return `update ${RUNS.ref} set ${set} where "id" = ${p.add(RUN_ID, close.id)}`;
}

/** Stamps rows published and fanned out, each with its own instant, from two parallel arrays. */
export const sentStampsSql = (ids: string, ats: string) =>
  `update ${OUTBOX_REF} as o set "published_at" = m."at", "fanned_out_at" = m."at" ` +
  `from unnest(${ids}, ${ats}) as m("id", "at") where o."id" = m."id"`;

const shapeKey = (b: BatchRows) =>
  [
    b.state ? 's' : '',
    b.settings ? 't' : '',
    b.newRun ? 'r' : '',
    `c${b.closeRuns.length}`,
    `o${b.outbox.length}`,
    `a${b.audit.length}`,
    b.reserveRunId ? 'n' : '',
    b.unflushed ? 'u' : '',
    b.sentStamps ? 'm' : '',
    b.exerciseReport ? 'x' : '',
  ].join('');

const texts = new Map<string, string>();

/**
 * A commit as data-modifying CTEs of one statement, which PostgreSQL runs as one transaction: one
 * round trip where BEGIN … COMMIT takes one per row. set_config(…, true) lasts to the end of that
 * transaction, as SET LOCAL does in a transaction block. The text depends only on the shape of the
 * batch, so each shape is prepared once per connection.
 */
export function batchStatement(b: BatchRows): Statement {
  const p = new Params();
  const parts: string[] = [];
  if (b.newRun) parts.push(insert(RUNS, [p.row(RUNS, b.newRun)]));
  for (const c of b.closeRuns) parts.push(closeRun(p, c));
  if (b.state) parts.push(upsert(STATE, p.row(STATE, b.state)));
  if (b.settings) parts.push(upsert(SETTINGS, p.row(SETTINGS, b.settings)));
  if (b.exerciseReport) parts.push(insert(EXERCISE_REPORT, [p.row(EXERCISE_REPORT, b.exerciseReport)]));
  const outboxAt = parts.length;
  if (b.outbox.length > 0)
    parts.push(
      `${insert(
        OUTBOX,
        b.outbox.map((r) => p.row(OUTBOX, r)),
      )} returning "id"`,
    );
  if (b.audit.length > 0)
    parts.push(
      insert(
        AUDIT,
        b.audit.map((r) => p.row(AUDIT, r)),
      ),
    );
  if (b.sentStamps)
    parts.push(sentStampsSql(p.raw(b.sentStamps.ids, 'bigint[]'), p.raw(b.sentStamps.ats, 'bigint[]')));
  const key = shapeKey(b);
  let text = texts.get(key);
  if (text === undefined) {
    const columns = [
      b.unflushed ? `set_config('synchronous_commit', 'off', true) as unflushed` : '1 as done',
      ...(b.reserveRunId ? [`nextval(pg_get_serial_sequence('${RUNS.ref}', 'id'))::int as run_id`] : []),
      // Ids come in VALUES order from the sequence, so sorted they match the rows as given.
      ...(b.outbox.length > 0 ? [`array(select "id" from w${outboxAt} order by "id") as outbox_ids`] : []),
    ];
    const ctes = parts.map((part, i) => `w${i} as (${part})`).join(', ');
    text = `${ctes ? `with ${ctes} ` : ''}select ${columns.join(', ')}`;
    texts.set(key, text);
  }
  return { name: `outpost_batch_${key}`, text, params: p.values };
}
