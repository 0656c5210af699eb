-- Carts. The cart is stored as one JSON document (data: entries,
-- addresses, shipping method, the last computed promotions and taxes,
-- the payment of a checked-out cart); the columns are what the store
-- queries and locks by: status, expiration (Unix milliseconds) and the
-- version every change increments.
CREATE TABLE carts (
	id          TEXT   NOT NULL,
	customer_id TEXT   NOT NULL,
	status      TEXT   NOT NULL,
	currency    TEXT   NOT NULL,
	country     TEXT   NOT NULL,
	channel     TEXT   NOT NULL,
	expires_at  BIGINT NOT NULL,
	created_at  BIGINT NOT NULL,
	updated_at  BIGINT NOT NULL,
	version     BIGINT NOT NULL,
	data        TEXT   NOT NULL,
	CONSTRAINT cart_id PRIMARY KEY (id)
);
-- The sweep's query: ACTIVE carts by expiration.
CREATE INDEX carts_active_expiry ON carts (expires_at) WHERE status = 'ACTIVE';
CREATE INDEX carts_customer ON carts (customer_id);
