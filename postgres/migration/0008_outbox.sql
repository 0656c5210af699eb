-- The outbox without a global lock. Each event records k, its order key:
-- the id of the transaction that wrote it (pg_current_xact_id()), raised
-- to the largest key already committed when that is larger, so that a
-- transaction that saw another's change (it waited for its row lock, or
-- read it) orders its events after the other's. Readers order by (k, seq)
-- and read only the events whose k is below the oldest transaction still
-- running (pg_snapshot_xmin): every transaction that commits later has a
-- key at least that large, so a reader never skips an event committed
-- after one it has read. Events written before this migration keep k = 0
-- and come first, in seq order, as before.
ALTER TABLE events ADD COLUMN k BIGINT NOT NULL DEFAULT 0;
DROP INDEX events_channel_type;
CREATE INDEX events_order ON events (k, seq);
CREATE INDEX events_channel_type ON events (channel, type, k, seq);

-- A relay's position is the pair (k, seq) of the last event it published.
ALTER TABLE relay_cursors ADD COLUMN k BIGINT NOT NULL DEFAULT 0;
