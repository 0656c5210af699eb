-- The event log: the outbox written in the same transaction as each change.
CREATE TABLE events (
	seq     BIGSERIAL PRIMARY KEY,
	id      TEXT NOT NULL UNIQUE,
	channel TEXT NOT NULL,
	type    TEXT NOT NULL,
	date    TEXT NOT NULL,
	payload TEXT NOT NULL
);
CREATE INDEX events_channel_type ON events (channel, type, seq);

-- How far each relay has published the log.
CREATE TABLE relay_cursors (
	name TEXT PRIMARY KEY,
	seq  BIGINT NOT NULL
);
