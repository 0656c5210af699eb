-- Carts. The cart is stored as one JSON document (data: entries,
-- addresses, shipping method, the last computed promotions and taxes,
-- the payment of a checked-out cart); the columns are what the store
-- queries and locks by: status, expiration (Unix milliseconds) and the
-- version every change increments.
CREATE TABLE carts (
	id          TEXT    PRIMARY KEY,
	customer_id TEXT    NOT NULL,
	status      TEXT    NOT NULL,
	currency    TEXT    NOT NULL,
	country     TEXT    NOT NULL,
	channel     TEXT    NOT NULL,
	expires_at  INTEGER NOT NULL,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	version     INTEGER NOT NULL,
	data        TEXT    NOT NULL
);
-- The sweep's query: ACTIVE carts by expiration.
CREATE INDEX carts_active_expiry ON carts (expires_at) WHERE status = 'ACTIVE';
CREATE INDEX carts_customer ON carts (customer_id);
