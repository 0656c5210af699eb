-- Languages (docs/api.md section 27): the twin of
-- sqlite/migration/0036_languages.sql. A category's translations are the
-- column translations, a product's are in its stored form; translated
-- slugs are unique per kind and locale in catalog_slugs.
ALTER TABLE categories ADD COLUMN translations TEXT NOT NULL DEFAULT '{}';

CREATE TABLE catalog_slugs (
	kind   TEXT NOT NULL,
	locale TEXT NOT NULL,
	slug   TEXT NOT NULL,
	owner  TEXT NOT NULL,
	PRIMARY KEY (kind, locale, slug)
);
CREATE INDEX catalog_slugs_owner ON catalog_slugs (kind, owner);

-- The translated text of a product with every word marked with its
-- locale (search.LocaleText), indexed with the weight of the title (A)
-- and of the description (C); a search in a locale looks up each word
-- plain or marked (product_search_query_locale).
ALTER TABLE products ADD COLUMN i18n_title TEXT;
ALTER TABLE products ADD COLUMN i18n_text TEXT;

CREATE FUNCTION product_search_doc(title text, brand text, sku text, description text, i18n_title text, i18n_text text)
RETURNS tsvector
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
	m text[] := product_search_map(concat(title, brand, sku, description, i18n_title, i18n_text));
BEGIN
	RETURN product_search_words(title, 'A', m) || product_search_words(brand, 'B', m)
		|| product_search_words(sku, 'B', m) || product_search_words(description, 'C', m)
		|| product_search_words(i18n_title, 'A', m) || product_search_words(i18n_text, 'C', m);
END
$$;

-- product_search_query_locale is product_search_query where each word is
-- found as it is or with the marker of a locale before it.
CREATE FUNCTION product_search_query_locale(q text, weights text, marker text) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
	RETURN (SELECT string_agg('(''' || x.w || '''' || x.s || ' | ''' || product_search_cut(marker || x.w) || '''' || x.s || ')',
			' & ' ORDER BY x.n)
		FROM (SELECT CASE WHEN octet_length(y.word) > 2047 THEN product_search_cut(y.word) ELSE y.word END AS w,
				CASE WHEN y.n = y.last THEN ':*' || weights WHEN weights <> '' THEN ':' || weights ELSE '' END AS s, y.n
			FROM (SELECT z.word, z.n, max(z.n) OVER () AS last
				FROM regexp_split_to_table(product_search_fold(q, product_search_map(q)), '[\x01-\x2f\x3a-\x60\x7b-\x7f]+')
					WITH ORDINALITY AS z (word, n)
				WHERE z.word <> '') y) x)::tsquery;
END
$$;

-- product_search_write as in 0020_search_faster.sql, with the translated
-- text.
CREATE OR REPLACE FUNCTION product_search_write() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	p products%ROWTYPE;
BEGIN
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
