-- The version of each small table that every process keeps whole in
-- memory (internal/snapcache): bumped in the same transaction as every
-- change of the table, so that a process sharing the database can tell
-- with one primary-key read whether its copy is out of date.
CREATE TABLE area_versions (
	area    TEXT   PRIMARY KEY,
	version BIGINT NOT NULL
);
INSERT INTO area_versions (area, version) VALUES ('taxes', 0), ('shipping', 0);
