-- Product search (docs/api.md section 21): a tsvector per product over its
-- title (weight A), brand and sku (B) and description (C), with a GIN
-- index, kept by a trigger in the product's own transaction. The text is
-- folded as SQLite's FTS5 unicode61 tokenizer with remove_diacritics 2
-- folds it (sqlite/migration/0015_search.sql), so that both stores find
-- the same products: accents removed (unaccent), lower case, and split
-- into words at every character that is not a letter or a digit. The
-- lexemes are built here rather than by to_tsvector's parser, which would
-- split some words its own way ("1e5abc" as a number and a word). The
-- query side (sqldb/search.go) casts its folded words to tsquery, the
-- last one as a prefix (:*). The parity test leaves this table out.
CREATE EXTENSION IF NOT EXISTS unaccent;

-- product_search_words returns the words of t as tsvector lexemes with
-- their positions and the weight w.
CREATE FUNCTION product_search_words(t text, w text) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
	SELECT coalesce(string_agg('''' || x.word || ''':' || least(x.n, 16383) || w, ' '), '')::tsvector
	FROM regexp_split_to_table(lower(unaccent(coalesce(t, ''))), '[^[:alnum:]]+') WITH ORDINALITY AS x (word, n)
	WHERE x.word <> ''
$$;

-- product_search_doc is the indexed document of a product.
CREATE FUNCTION product_search_doc(title text, brand text, sku text, description text) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
	SELECT product_search_words(title, 'A') || product_search_words(brand, 'B')
		|| product_search_words(sku, 'B') || product_search_words(description, 'C')
$$;

CREATE TABLE product_search (
	product_seq BIGINT   NOT NULL PRIMARY KEY,
	doc         TSVECTOR NOT NULL
);
CREATE INDEX product_search_doc ON product_search USING GIN (doc) WITH (fastupdate = off);

CREATE FUNCTION product_search_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		DELETE FROM product_search WHERE product_seq = OLD.seq;
		RETURN NULL;
	END IF;
	INSERT INTO product_search (product_seq, doc)
	VALUES (NEW.seq, product_search_doc(NEW.title, NEW.brand, NEW.sku, NEW.description))
	ON CONFLICT (product_seq) DO UPDATE SET doc = EXCLUDED.doc;
	RETURN NULL;
END
$$;

CREATE TRIGGER product_search_insert AFTER INSERT ON products
FOR EACH ROW EXECUTE FUNCTION product_search_sync();
CREATE TRIGGER product_search_delete AFTER DELETE ON products
FOR EACH ROW EXECUTE FUNCTION product_search_sync();
CREATE TRIGGER product_search_update AFTER UPDATE OF title, brand, sku, description ON products
FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.brand IS DISTINCT FROM NEW.brand
	OR OLD.sku IS DISTINCT FROM NEW.sku OR OLD.description IS DISTINCT FROM NEW.description)
EXECUTE FUNCTION product_search_sync();

-- The products that exist already.
INSERT INTO product_search (product_seq, doc)
SELECT seq, product_search_doc(title, brand, sku, description) FROM products;
