-- Checkout attempts: a checkout records its authorisation request here
-- (in the transaction that allocates the order's number) before it asks
-- the payment provider, and its transaction deletes the row with the
-- order it places; a failed checkout deletes it once the authorisation is
-- voided. A row left behind (the process died in between) is an
-- authorisation that may exist without an order: the orders' recovery job
-- asks the provider again under the same idempotency key (the same
-- authorisation) and voids it. created_at is Unix milliseconds.
CREATE TABLE checkout_attempts (
	idempotency_key TEXT   NOT NULL,
	provider        TEXT   NOT NULL,
	request         TEXT   NOT NULL,
	created_at      BIGINT NOT NULL,
	CONSTRAINT checkout_attempt_key PRIMARY KEY (idempotency_key)
);
CREATE INDEX checkout_attempts_created ON checkout_attempts (created_at);
