-- Customer groups and price lists (docs/api.md section 26). A customer's
-- groups are in its JSON document (customers.data); a group is a code and
-- a title. A price list is one JSON document (data: title, groups, channel,
-- country, dates, priority) with the columns the store looks up by, and
-- its prices are rows: one per product and tier (min_quantity), amounts
-- in minor units of the list's currency. Times are Unix milliseconds.
CREATE TABLE customer_groups (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	code       TEXT    NOT NULL UNIQUE,
	title      TEXT    NOT NULL,
	created_at INTEGER NOT NULL
);

CREATE TABLE price_lists (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	id         TEXT    NOT NULL UNIQUE,
	code       TEXT    NOT NULL UNIQUE,
	status     TEXT    NOT NULL,
	currency   TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	data       TEXT    NOT NULL
);

CREATE TABLE price_list_prices (
	list_id      TEXT    NOT NULL REFERENCES price_lists (id) ON DELETE CASCADE,
	product_id   TEXT    NOT NULL,
	min_quantity INTEGER NOT NULL,
	amount       INTEGER NOT NULL,
	PRIMARY KEY (list_id, product_id, min_quantity)
);
CREATE INDEX price_list_prices_product ON price_list_prices (product_id);

-- The price lists' version (sqldb/versions.go): every process keeps the
-- active lists' prices in memory.
INSERT INTO area_versions (area, version) VALUES ('pricelists', 0);
