-- The version of the catalog: bumped in the same transaction as every
-- change of a product or a category, so that each process sharing the
-- database can tell with one primary-key read whether its cache of
-- products is out of date (catalog/cache.go).
CREATE TABLE catalog_version (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	version BIGINT  NOT NULL
);
INSERT INTO catalog_version (id, version) VALUES (1, 0);
