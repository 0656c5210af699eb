-- Stock of each product in each warehouse. reserved is the part of quantity
-- held by carts' active reservations; the checks make overselling
-- impossible even for a faulty statement.
CREATE TABLE stock (
	product_id   TEXT    NOT NULL,
	warehouse_id TEXT    NOT NULL,
	quantity     INTEGER NOT NULL CHECK (quantity >= 0),
	reserved     INTEGER NOT NULL DEFAULT 0,
	CONSTRAINT product_warehouse PRIMARY KEY (product_id, warehouse_id),
	CONSTRAINT stock_reserved_range CHECK (reserved >= 0 AND reserved <= quantity)
);

-- Reservations of cart entries. seq orders them (newest first on release);
-- expired (0/1) is set by the sweep once the units have been given back.
-- expires_at is in Unix milliseconds.
CREATE TABLE stock_reservations (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT    NOT NULL UNIQUE,
	cart_id      TEXT    NOT NULL,
	item_id      TEXT    NOT NULL,
	product_id   TEXT    NOT NULL,
	warehouse_id TEXT    NOT NULL,
	quantity     INTEGER NOT NULL CHECK (quantity > 0),
	expires_at   INTEGER NOT NULL,
	expired      INTEGER NOT NULL DEFAULT 0,
	FOREIGN KEY (product_id, warehouse_id) REFERENCES stock (product_id, warehouse_id)
);
CREATE INDEX stock_reservations_cart ON stock_reservations (cart_id, item_id);
CREATE INDEX stock_reservations_due ON stock_reservations (expires_at) WHERE NOT expired;
