-- Idempotency keys (docs/api.md section 18), per token subject. fingerprint
-- is a SHA-256 of the operation and its canonical arguments. status is 0
-- while the first request runs (until locked_until, Unix milliseconds),
-- then the stored answer's HTTP status with its body. created_at (Unix
-- milliseconds) ages a key out after 24 hours.
CREATE TABLE idempotency_keys (
	sub          TEXT    NOT NULL,
	idem_key     TEXT    NOT NULL,
	fingerprint  TEXT    NOT NULL,
	status       INTEGER NOT NULL,
	body         BLOB,
	created_at   INTEGER NOT NULL,
	locked_until INTEGER NOT NULL,
	PRIMARY KEY (sub, idem_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
