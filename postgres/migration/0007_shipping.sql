-- Shipping methods (shipping.create/info/list/remove). seq gives the
-- creation order of lists. rates is the method's rate groups as JSON:
-- [{id, locations: [{country, state?}], rates: [{currency, amount}]}] with
-- amounts in minor units of their currency.
CREATE TABLE shipping_methods (
	seq      BIGSERIAL PRIMARY KEY,
	id       TEXT    NOT NULL,
	title    TEXT    NOT NULL,
	active   BOOLEAN NOT NULL DEFAULT TRUE,
	tax_code TEXT    NOT NULL,
	rates    TEXT    NOT NULL,
	CONSTRAINT shipping_methods_id UNIQUE (id)
);

-- The countries each method has a location in: the methods a cart's
-- address may use are found through this index without reading the others.
CREATE TABLE shipping_method_countries (
	country   TEXT NOT NULL,
	method_id TEXT NOT NULL REFERENCES shipping_methods (id) ON DELETE CASCADE,
	CONSTRAINT shipping_method_countries_pkey PRIMARY KEY (country, method_id)
);
CREATE INDEX shipping_method_countries_method ON shipping_method_countries (method_id);
