-- Languages (docs/api.md section 27). A product's translations are in its
-- stored form (products.doc); a category's in the column translations
-- ({"es": {"title": ..., "description": ..., "slug": ...}}). Translated
-- slugs are unique per kind and locale: catalog_slugs holds each one
-- with its owner (a product or category id), written in the record's
-- transaction.
ALTER TABLE categories ADD COLUMN translations TEXT NOT NULL DEFAULT '{}';

CREATE TABLE catalog_slugs (
	kind   TEXT NOT NULL, -- product or category
	locale TEXT NOT NULL,
	slug   TEXT NOT NULL,
	owner  TEXT NOT NULL,
	PRIMARY KEY (kind, locale, slug)
);
CREATE INDEX catalog_slugs_owner ON catalog_slugs (kind, owner);

-- The translated text of a product as the search index holds it: every
-- word marked with its locale (search.LocaleText: "0les0frigorifico"),
-- the titles in i18n_title, the descriptions in i18n_text, so that one
-- index finds the words of any locale apart from the default's; a
-- search in a locale looks up each word plain or marked
-- (sqlite/search.go). The FTS5 table gains the two columns: it is made
-- again, with its triggers, and rebuilt.
ALTER TABLE products ADD COLUMN i18n_title TEXT;
ALTER TABLE products ADD COLUMN i18n_text TEXT;

DROP TRIGGER product_search_insert;
DROP TRIGGER product_search_delete;
DROP TRIGGER product_search_update;
DROP TABLE product_search;

CREATE VIRTUAL TABLE product_search USING fts5(
	title, brand, sku, description, i18n_title, i18n_text,
	content = 'products', content_rowid = 'seq',
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '2 3'
);

CREATE TRIGGER product_search_insert AFTER INSERT ON products BEGIN
	INSERT INTO product_search (rowid, title, brand, sku, description, i18n_title, i18n_text)
	VALUES (new.seq, new.title, new.brand, new.sku, new.description, new.i18n_title, new.i18n_text);
END;

CREATE TRIGGER product_search_delete AFTER DELETE ON products BEGIN
	INSERT INTO product_search (product_search, rowid, title, brand, sku, description, i18n_title, i18n_text)
	VALUES ('delete', old.seq, old.title, old.brand, old.sku, old.description, old.i18n_title, old.i18n_text);
END;

CREATE TRIGGER product_search_update AFTER UPDATE OF title, brand, sku, description, i18n_title, i18n_text ON products
WHEN old.title IS NOT new.title OR old.brand IS NOT new.brand OR old.sku IS NOT new.sku
	OR old.description IS NOT new.description OR old.i18n_title IS NOT new.i18n_title
	OR old.i18n_text IS NOT new.i18n_text
BEGIN
	INSERT INTO product_search (product_search, rowid, title, brand, sku, description, i18n_title, i18n_text)
	VALUES ('delete', old.seq, old.title, old.brand, old.sku, old.description, old.i18n_title, old.i18n_text);
	INSERT INTO product_search (rowid, title, brand, sku, description, i18n_title, i18n_text)
	VALUES (new.seq, new.title, new.brand, new.sku, new.description, new.i18n_title, new.i18n_text);
END;

INSERT INTO product_search (product_search) VALUES ('rebuild');
-- As 0020_search_faster.sql set it on the table this one replaces.
INSERT INTO product_search (product_search, rank) VALUES ('automerge', 16);
