-- Webhooks (docs/api.md section 17). seq gives the creation order of
-- lists. secret is the signing secret sealed with AES-GCM (a key derived
-- from the service's JWT secret): it must be usable for HMAC, so it cannot
-- be hashed. channels and types are JSON arrays (types NULL: all types).
-- f_active, f_channels and f_types are the subscription as the outbox
-- follower has seen it at its cursor (from the webhook's own WEBHOOKS
-- events), so that an event gets a delivery only when the webhook was
-- active at that point of the log.
CREATE TABLE webhooks (
	seq         BIGSERIAL PRIMARY KEY,
	id          TEXT    NOT NULL,
	url         TEXT    NOT NULL,
	channels    TEXT    NOT NULL,
	types       TEXT,
	description TEXT,
	active      BOOLEAN NOT NULL,
	secret      TEXT    NOT NULL,
	created_at  BIGINT  NOT NULL,
	f_active    BOOLEAN NOT NULL DEFAULT FALSE,
	f_channels  TEXT    NOT NULL DEFAULT '[]',
	f_types     TEXT,
	CONSTRAINT webhooks_id UNIQUE (id)
);

-- One delivery per (webhook, event). Times are Unix milliseconds.
-- claim and claimed_until are the lease of the dispatcher attempting it:
-- a delivery is attempted by one dispatcher at a time (claimed with
-- FOR UPDATE SKIP LOCKED). last_try is true when the next attempt is the
-- last (a redelivery).
CREATE TABLE webhook_deliveries (
	seq              BIGSERIAL PRIMARY KEY,
	id               TEXT    NOT NULL,
	webhook_id       TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_id         TEXT    NOT NULL,
	status           TEXT    NOT NULL,
	attempts         INTEGER NOT NULL DEFAULT 0,
	last_status_code INTEGER,
	last_error       TEXT,
	next_attempt_at  BIGINT,
	delivered_at     BIGINT,
	last_try         BOOLEAN NOT NULL DEFAULT FALSE,
	claim            TEXT,
	claimed_until    BIGINT,
	CONSTRAINT webhook_deliveries_id UNIQUE (id)
);
CREATE UNIQUE INDEX webhook_deliveries_webhook_event ON webhook_deliveries (webhook_id, event_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq);
