-- Catalog import jobs (docs/api.md section 25): one row per product.import,
-- its counters moved on after every batch of rows, so that job.info follows
-- it from any process. errors holds the first 1,000 row errors as a JSON
-- array of {line, sku, error, data}. Times are Unix milliseconds.
CREATE TABLE import_jobs (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	id          TEXT    NOT NULL UNIQUE,
	status      TEXT    NOT NULL,
	format      TEXT    NOT NULL,
	dry_run     INTEGER NOT NULL,
	rows        INTEGER NOT NULL,
	processed   INTEGER NOT NULL,
	created     INTEGER NOT NULL,
	updated     INTEGER NOT NULL,
	unchanged   INTEGER NOT NULL,
	rejected    INTEGER NOT NULL,
	errors      TEXT    NOT NULL,
	started_at  INTEGER NOT NULL,
	finished_at INTEGER
);
