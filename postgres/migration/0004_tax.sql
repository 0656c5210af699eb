-- Taxes (tax.create/update/remove/list). seq gives the creation order of
-- lists and of the lines of a code with several taxes. rate is the exact
-- decimal in its canonical text form ("21", "5.5"), so equality filters
-- compare exactly and nothing goes through a float.
CREATE TABLE taxes (
	seq           BIGSERIAL PRIMARY KEY,
	id            TEXT NOT NULL,
	code          TEXT NOT NULL,
	class         TEXT NOT NULL,
	title         TEXT NOT NULL,
	description   TEXT NOT NULL DEFAULT '',
	rate          TEXT NOT NULL,
	is_percentage BOOLEAN NOT NULL DEFAULT TRUE,
	CONSTRAINT taxes_id UNIQUE (id)
);
-- The taxes of the codes of a cart, in creation order.
CREATE INDEX taxes_code ON taxes (code, seq);
