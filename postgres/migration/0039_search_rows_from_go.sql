-- A product's search row may be written by the service in the
-- transaction that inserts the product (postgres.Dialect.IndexProducts:
-- the document built in Go as product_search_doc builds it, for the
-- products created in a batch); the deferred trigger then finds the row
-- at the commit and leaves it. Only an INSERT's: a product's seq is new,
-- so a row for it can only be the one its own transaction wrote. Otherwise
-- product_search_write is as in 0036_languages.sql.
CREATE OR REPLACE FUNCTION product_search_write() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	p products%ROWTYPE;
BEGIN
	IF TG_OP = 'INSERT' AND EXISTS (SELECT 1 FROM product_search WHERE product_seq = NEW.seq) THEN
		RETURN NULL;
	END IF;
	SELECT * INTO p FROM products WHERE seq = NEW.seq;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE' AND OLD.title IS NOT DISTINCT FROM NEW.title AND OLD.brand IS NOT DISTINCT FROM NEW.brand
		AND OLD.sku IS NOT DISTINCT FROM NEW.sku AND OLD.description IS NOT DISTINCT FROM NEW.description
		AND OLD.i18n_title IS NOT DISTINCT FROM NEW.i18n_title AND OLD.i18n_text IS NOT DISTINCT FROM NEW.i18n_text THEN
		UPDATE product_search SET online = p.status = 'ONLINE', brand = p.brand,
			categories = product_search_categories(p.seq), prices = product_search_prices(p.seq)
		WHERE product_seq = p.seq;
		IF FOUND THEN
			RETURN NULL;
		END IF;
	END IF;
	INSERT INTO product_search (product_seq, doc, online, brand, categories, prices)
	VALUES (p.seq, product_search_doc(p.title, p.brand, p.sku, p.description, p.i18n_title, p.i18n_text),
		p.status = 'ONLINE', p.brand, product_search_categories(p.seq), product_search_prices(p.seq))
	ON CONFLICT (product_seq) DO UPDATE SET doc = EXCLUDED.doc, online = EXCLUDED.online, brand = EXCLUDED.brand,
		categories = EXCLUDED.categories, prices = EXCLUDED.prices;
	RETURN NULL;
END
$$;
