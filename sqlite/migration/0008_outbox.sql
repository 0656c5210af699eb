-- The outbox's order key k (see the PostgreSQL migration of the same
-- number). SQLite has a single writer, so the sequence number alone
-- follows commit order: k stays 0 and readers order by (k, seq), the same
-- query on both databases.
ALTER TABLE events ADD COLUMN k INTEGER NOT NULL DEFAULT 0;
DROP INDEX events_channel_type;
CREATE INDEX events_order ON events (k, seq);
CREATE INDEX events_channel_type ON events (channel, type, k, seq);

-- A relay's position is the pair (k, seq) of the last event it published.
ALTER TABLE relay_cursors ADD COLUMN k INTEGER NOT NULL DEFAULT 0;
