-- Coupons and promotion limits (docs/api.md section 16). code is as
-- created, code_key its comparison key (NFC, lower case), unique; start_at
-- and end_at are Unix milliseconds (NULL: unbounded); usage_count is how
-- many orders use the promotion now, kept below usage_limit by a
-- conditional update.
ALTER TABLE promotions ADD COLUMN code TEXT;
ALTER TABLE promotions ADD COLUMN code_key TEXT;
ALTER TABLE promotions ADD COLUMN start_at BIGINT;
ALTER TABLE promotions ADD COLUMN end_at BIGINT;
ALTER TABLE promotions ADD COLUMN usage_limit BIGINT;
ALTER TABLE promotions ADD COLUMN usage_limit_per_customer BIGINT;
ALTER TABLE promotions ADD COLUMN usage_count BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX promotions_code ON promotions (code_key);

-- One row per promotion used by an order (the checkout of cart_id): the
-- count per customer is exact, and order.cancel releases the order's rows.
-- customer_id is ANON for anonymous orders (not counted per customer).
CREATE TABLE promotion_redemptions (
	promotion_id TEXT   NOT NULL,
	cart_id      TEXT   NOT NULL,
	customer_id  TEXT   NOT NULL,
	created_at   BIGINT NOT NULL,
	CONSTRAINT promotion_redemption_id PRIMARY KEY (promotion_id, cart_id)
);
CREATE INDEX promotion_redemptions_customer ON promotion_redemptions (promotion_id, customer_id);
CREATE INDEX promotion_redemptions_cart ON promotion_redemptions (cart_id);
