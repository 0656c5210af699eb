-- A day's orders newest first (order.list with createdFrom/createdTo, issue
-- 37): the numbers of the orders in a range of creation times are read
-- from this index alone, sorted, and only the page's orders are read from
-- the table (sqldb.OrderStore.Orders), instead of every order of the range
-- read and sorted to return 20. It serves the dashboard's ranges of
-- created_at as orders_created (created_at) did.
DROP INDEX orders_created;
CREATE INDEX orders_created ON orders (created_at, number);
