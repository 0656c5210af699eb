-- The reservations of one stock record: the foreign key's check when a
-- stock row is deleted, and product.remove deleting a product's
-- reservations, read this index instead of every reservation.
CREATE INDEX stock_reservations_stock ON stock_reservations (product_id, warehouse_id);
