-- Product search, faster (BENCHMARKS.md, Search): the index row of a
-- product also holds what a search filters, sorts and counts by, and its
-- document is built by PL/pgSQL functions. And the query's words are
-- folded here, by the function that folds the indexed text
-- (product_search_query), not by the service's folding, which is SQLite's:
-- a word typed as a product has it ("Straße", which unaccent indexes as
-- strasse) was not found.
--
-- The facts: whether the product is ONLINE, its brand, the categories it
-- is directly in and its lowest price in each currency ({"USD": 74900}),
-- so that a search reads one row per product found (the GIN index gives
-- them) instead of looking each one up in products, product_prices and
-- product_categories: eleven times fewer buffers for a query matching 500
-- products. They are written by a constraint trigger deferred to the end
-- of the product's transaction, when the product's price and category
-- rows (written after its products row) are there; the index still
-- changes in the product's own transaction.
--
-- The document is the one 0015_search.sql defined, lexeme for lexeme (the
-- rows indexed already stay valid), computed by PL/pgSQL functions, whose
-- statements are planned once per connection: SQL functions called from a
-- trigger were planned again on every call, which made most of the
-- index's cost on product.create.

DROP TRIGGER product_search_insert ON products;
DROP TRIGGER product_search_update ON products;
DROP TRIGGER product_search_delete ON products;
DROP FUNCTION product_search_sync();

CREATE OR REPLACE FUNCTION product_search_words(t text, w text) RETURNS tsvector
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
	RETURN (SELECT coalesce(string_agg('''' || x.word || ''':' || least(x.n, 16383) || w, ' '), '')::tsvector
		FROM regexp_split_to_table(lower(unaccent(coalesce(t, ''))), '[^[:alnum:]]+') WITH ORDINALITY AS x (word, n)
		WHERE x.word <> '');
END
$$;

CREATE OR REPLACE FUNCTION product_search_doc(title text, brand text, sku text, description text) RETURNS tsvector
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
	RETURN product_search_words(title, 'A') || product_search_words(brand, 'B')
		|| product_search_words(sku, 'B') || product_search_words(description, 'C');
END
$$;

-- product_search_query returns the tsquery of a search's text q: its words
-- folded as product_search_words folds the indexed text, so that a word
-- typed as a product has it is found (ß as ss on both sides), all of them
-- required, the last one also as a prefix, each restricted to the weights
-- given ('' for any); NULL without words. It is IMMUTABLE (unaccent itself
-- is STABLE: its rules could change) so that the planner computes it once
-- from the statement's text rather than for every row.
CREATE FUNCTION product_search_query(q text, weights text) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
	RETURN (SELECT string_agg('''' || x.word || '''' || CASE WHEN x.n = x.last THEN ':*' || weights
			WHEN weights <> '' THEN ':' || weights ELSE '' END, ' & ' ORDER BY x.n)
		FROM (SELECT y.word, y.n, max(y.n) OVER () AS last
			FROM regexp_split_to_table(lower(unaccent(q)), '[^[:alnum:]]+') WITH ORDINALITY AS y (word, n)
			WHERE y.word <> '') x)::tsquery;
END
$$;

-- product_search_categories and product_search_prices are the facts of
-- the product seq p from its side tables (PL/pgSQL too, for the same
-- reason).
CREATE FUNCTION product_search_categories(p bigint) RETURNS text[]
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
	RETURN ARRAY(SELECT category_id FROM product_categories WHERE product_seq = p ORDER BY category_id);
END
$$;

CREATE FUNCTION product_search_prices(p bigint) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
	RETURN (SELECT coalesce(jsonb_object_agg(currency, amount), '{}')
		FROM (SELECT currency, MIN(amount) AS amount FROM product_prices WHERE product_seq = p GROUP BY currency) x);
END
$$;

-- product_search_write runs at the end of the transaction of a product's
-- insert or update: the product as it is then (an update later in the
-- transaction queued its own run; a removal deleted the row already). The
-- document is computed again only when the text changed.
CREATE FUNCTION product_search_write() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	p products%ROWTYPE;
BEGIN
	SELECT * INTO p FROM products WHERE seq = NEW.seq;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE' AND OLD.title IS NOT DISTINCT FROM NEW.title AND OLD.brand IS NOT DISTINCT FROM NEW.brand
		AND OLD.sku IS NOT DISTINCT FROM NEW.sku AND OLD.description IS NOT DISTINCT FROM NEW.description THEN
		UPDATE product_search SET online = p.status = 'ONLINE', brand = p.brand,
			categories = product_search_categories(p.seq), prices = product_search_prices(p.seq)
		WHERE product_seq = p.seq;
		IF FOUND THEN
			RETURN NULL;
		END IF;
	END IF;
	INSERT INTO product_search (product_seq, doc, online, brand, categories, prices)
	VALUES (p.seq, product_search_doc(p.title, p.brand, p.sku, p.description), p.status = 'ONLINE', p.brand,
		product_search_categories(p.seq), product_search_prices(p.seq))
	ON CONFLICT (product_seq) DO UPDATE SET doc = EXCLUDED.doc, online = EXCLUDED.online, brand = EXCLUDED.brand,
		categories = EXCLUDED.categories, prices = EXCLUDED.prices;
	RETURN NULL;
END
$$;

CREATE FUNCTION product_search_remove() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM product_search WHERE product_seq = OLD.seq;
	RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER product_search_write AFTER INSERT OR UPDATE ON products
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION product_search_write();
CREATE TRIGGER product_search_remove AFTER DELETE ON products
FOR EACH ROW EXECUTE FUNCTION product_search_remove();

-- The table again, with the facts of the products that exist already
-- (their documents as they are, or computed for a product the index
-- lacked), in one pass over each table, and its GIN index built in bulk:
-- updating every row in place would leave the table and its index twice
-- their size until vacuumed.
CREATE TABLE product_search_next (
	product_seq BIGINT   NOT NULL PRIMARY KEY,
	doc         TSVECTOR NOT NULL,
	online      BOOLEAN  NOT NULL,
	brand       TEXT,
	categories  TEXT[]   NOT NULL,
	prices      JSONB    NOT NULL
) WITH (fillfactor = 90); -- room on each page for the updates that leave the text alone
INSERT INTO product_search_next (product_seq, doc, online, brand, categories, prices)
SELECT p.seq, coalesce(s.doc, product_search_doc(p.title, p.brand, p.sku, p.description)), p.status = 'ONLINE', p.brand,
	coalesce(c.ids, '{}'), coalesce(x.prices, '{}')
FROM products p
LEFT JOIN product_search s ON s.product_seq = p.seq
LEFT JOIN (SELECT product_seq, array_agg(category_id ORDER BY category_id) AS ids FROM product_categories GROUP BY product_seq) c
	ON c.product_seq = p.seq
LEFT JOIN (SELECT product_seq, jsonb_object_agg(currency, amount) AS prices
		FROM (SELECT product_seq, currency, MIN(amount) AS amount FROM product_prices GROUP BY product_seq, currency) m
		GROUP BY product_seq) x
	ON x.product_seq = p.seq;
DROP TABLE product_search;
ALTER TABLE product_search_next RENAME TO product_search;
ALTER INDEX product_search_next_pkey RENAME TO product_search_pkey;
CREATE INDEX product_search_doc ON product_search USING GIN (doc) WITH (fastupdate = off);
