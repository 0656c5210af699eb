-- Returns (docs/api.md section 24). A return is one JSON document (data,
-- as clients see it) plus what the service keeps and never shows
-- (internal: the exchange's cart and value); the columns are what the
-- store filters, sorts and locks by. Times are Unix milliseconds.
CREATE TABLE returns (
	id          TEXT    PRIMARY KEY,
	number      INTEGER NOT NULL UNIQUE,
	order_id    TEXT    NOT NULL,
	customer_id TEXT    NOT NULL,
	status      TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	version     INTEGER NOT NULL,
	data        TEXT    NOT NULL,
	internal    TEXT    NOT NULL
);
CREATE INDEX returns_order ON returns (order_id, number);
CREATE INDEX returns_customer ON returns (customer_id, number);
CREATE INDEX returns_status ON returns (status, number);

-- Return numbers ("R" + the number): as order_numbers, the first is 1001.
CREATE TABLE return_numbers (
	n INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT
);
INSERT INTO sqlite_sequence (name, seq) VALUES ('return_numbers', 1000);
