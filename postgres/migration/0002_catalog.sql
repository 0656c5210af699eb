-- The catalog. seq gives creation order (list order); id is the public id.

-- Categories: the tree is kept as parent, level and path (ancestor ids
-- joined by "." from ROOT down to the category's own id), so that a subtree
-- is the categories whose path starts with the category's path + ".".
CREATE TABLE categories (
	seq             BIGSERIAL PRIMARY KEY,
	id              TEXT    NOT NULL,
	parent          TEXT,
	slug            TEXT    NOT NULL,
	title           TEXT    NOT NULL,
	description     TEXT,
	level           INTEGER NOT NULL,
	path            TEXT    NOT NULL,
	classifications TEXT    NOT NULL DEFAULT '[]',
	CONSTRAINT categories_id UNIQUE (id),
	CONSTRAINT categories_parent_fk FOREIGN KEY (parent) REFERENCES categories (id)
);
CREATE UNIQUE INDEX categories_parent_slug ON categories (parent, slug);
CREATE INDEX categories_path ON categories (path text_pattern_ops);

INSERT INTO categories (id, parent, slug, title, description, level, path, classifications)
VALUES ('ROOT', NULL, 'root', 'ROOT', NULL, 1, 'ROOT', '[]');

-- Products: the filterable scalars as columns, the whole record as JSON in
-- doc, and a version for optimistic concurrency.
CREATE TABLE products (
	seq          BIGSERIAL PRIMARY KEY,
	id           TEXT    NOT NULL,
	sku          TEXT    NOT NULL,
	status       TEXT    NOT NULL,
	title        TEXT    NOT NULL,
	description  TEXT,
	brand        TEXT,
	tax_code     TEXT    NOT NULL,
	stock_status INTEGER NOT NULL,
	is_net_price BOOLEAN NOT NULL,
	base         TEXT,
	version      BIGINT  NOT NULL,
	doc          TEXT    NOT NULL,
	CONSTRAINT products_id UNIQUE (id)
);
CREATE UNIQUE INDEX products_sku ON products (sku);
CREATE INDEX products_base ON products (base) WHERE base IS NOT NULL;

-- Category membership, for the categories filter (category first, then
-- creation order) and for promotions.
CREATE TABLE product_categories (
	category_id TEXT   NOT NULL,
	product_seq BIGINT NOT NULL,
	PRIMARY KEY (category_id, product_seq),
	CONSTRAINT product_categories_category_fk FOREIGN KEY (category_id) REFERENCES categories (id)
);
CREATE INDEX product_categories_product ON product_categories (product_seq);

-- Prices, for the prices.* filters.
CREATE TABLE product_prices (
	product_seq   BIGINT NOT NULL,
	price_id      TEXT   NOT NULL,
	amount        BIGINT NOT NULL,
	currency      TEXT   NOT NULL,
	country       TEXT,
	customer_type TEXT,
	channel       TEXT,
	PRIMARY KEY (product_seq, price_id)
);
CREATE INDEX product_prices_id ON product_prices (price_id);
CREATE INDEX product_prices_currency ON product_prices (currency);
CREATE INDEX product_prices_country ON product_prices (country);
CREATE INDEX product_prices_customer_type ON product_prices (customer_type);
CREATE INDEX product_prices_channel ON product_prices (channel);

-- Medias, for the medias.id filter.
CREATE TABLE product_medias (
	product_seq BIGINT NOT NULL,
	media_id    TEXT   NOT NULL,
	PRIMARY KEY (product_seq, media_id)
);
CREATE INDEX product_medias_id ON product_medias (media_id);
