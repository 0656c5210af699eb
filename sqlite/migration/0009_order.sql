-- Orders (docs/api.md section 13). The order is one JSON document (data,
-- as clients see it) plus what the service keeps and never shows
-- (internal: pending payment operations, the warehouses each item's units
-- came from); the columns are what the store filters, sorts and locks by.
-- Times are Unix milliseconds. pending_since is the creation time of the
-- oldest payment operation begun and not finished (NULL when none): the
-- recovery job's query.
CREATE TABLE orders (
	id                 TEXT    PRIMARY KEY,
	number             INTEGER NOT NULL UNIQUE,
	cart_id            TEXT    NOT NULL UNIQUE,
	customer_id        TEXT    NOT NULL,
	status             TEXT    NOT NULL,
	payment_status     TEXT    NOT NULL,
	fulfillment_status TEXT    NOT NULL,
	payment_provider   TEXT    NOT NULL,
	payment_reference  TEXT    NOT NULL,
	created_at         INTEGER NOT NULL,
	updated_at         INTEGER NOT NULL,
	version            INTEGER NOT NULL,
	pending_since      INTEGER,
	data               TEXT    NOT NULL,
	internal           TEXT    NOT NULL
);
CREATE INDEX orders_customer ON orders (customer_id, number);
CREATE INDEX orders_status ON orders (status, number);
CREATE INDEX orders_payment_status ON orders (payment_status, number);
CREATE INDEX orders_fulfillment_status ON orders (fulfillment_status, number);
CREATE INDEX orders_payment ON orders (payment_provider, payment_reference);
CREATE INDEX orders_pending ON orders (pending_since) WHERE pending_since IS NOT NULL;

-- Order numbers: AUTOINCREMENT never gives a number twice (the high-water
-- mark is kept in sqlite_sequence even when rows are deleted); the first
-- is 1001. A number is allocated in a transaction of its own and its row
-- deleted at once.
CREATE TABLE order_numbers (
	n INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT
);
INSERT INTO sqlite_sequence (name, seq) VALUES ('order_numbers', 1000);

-- Payment providers' notifications already applied (webhook event ids).
CREATE TABLE payment_notifications (
	provider TEXT    NOT NULL,
	event_id TEXT    NOT NULL,
	seen_at  INTEGER NOT NULL,
	PRIMARY KEY (provider, event_id)
);
