-- The orders created since a time (the admin dashboard's sums of today's
-- orders, order.list's createdFrom): a range of this index, not a scan of
-- every order.
CREATE INDEX orders_created ON orders (created_at);
