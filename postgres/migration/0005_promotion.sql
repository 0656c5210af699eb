-- Promotions. seq is the creation order (it breaks priority ties and orders
-- lists); if_rule and then_rule hold the canonical JSON of the rules.
CREATE TABLE promotions (
	seq       BIGSERIAL PRIMARY KEY,
	id        TEXT    NOT NULL,
	title     TEXT    NOT NULL,
	class     TEXT    NOT NULL,
	active    BOOLEAN NOT NULL,
	priority  BIGINT  NOT NULL,
	if_rule   TEXT    NOT NULL,
	then_rule TEXT    NOT NULL,
	CONSTRAINT promotion_id UNIQUE (id)
);
CREATE INDEX promotions_active ON promotions (active, seq);

-- The version of the promotions: bumped in the same transaction as every
-- change of a promotion, so that each process sharing the database can
-- tell with one primary-key read whether its cache of active promotions is
-- out of date.
CREATE TABLE promotions_version (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	version BIGINT  NOT NULL
);
INSERT INTO promotions_version (id, version) VALUES (1, 0);
