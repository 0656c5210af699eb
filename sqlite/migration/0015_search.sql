-- Product search (docs/api.md section 21): an FTS5 index over the title,
-- brand, sku and description of every product, kept by triggers in the
-- product's own transaction. It is an external-content index (the text
-- stays in products only); its rowid is the product's seq. Tokens are
-- Unicode letters and digits, case- and accent-folded (unicode61
-- remove_diacritics 2); the query side (sqldb/search.go) quotes every word
-- and makes the last one a prefix. The PostgreSQL twin is a tsvector table
-- folding the text the same way; the parity test leaves both out.
CREATE VIRTUAL TABLE product_search USING fts5(
	title, brand, sku, description,
	content = 'products', content_rowid = 'seq',
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '2 3'
);

CREATE TRIGGER product_search_insert AFTER INSERT ON products BEGIN
	INSERT INTO product_search (rowid, title, brand, sku, description)
	VALUES (new.seq, new.title, new.brand, new.sku, new.description);
END;

CREATE TRIGGER product_search_delete AFTER DELETE ON products BEGIN
	INSERT INTO product_search (product_search, rowid, title, brand, sku, description)
	VALUES ('delete', old.seq, old.title, old.brand, old.sku, old.description);
END;

CREATE TRIGGER product_search_update AFTER UPDATE OF title, brand, sku, description ON products
WHEN old.title IS NOT new.title OR old.brand IS NOT new.brand OR old.sku IS NOT new.sku
	OR old.description IS NOT new.description
BEGIN
	INSERT INTO product_search (product_search, rowid, title, brand, sku, description)
	VALUES ('delete', old.seq, old.title, old.brand, old.sku, old.description);
	INSERT INTO product_search (rowid, title, brand, sku, description)
	VALUES (new.seq, new.title, new.brand, new.sku, new.description);
END;

-- The products that exist already.
INSERT INTO product_search (product_search) VALUES ('rebuild');
