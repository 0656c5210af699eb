-- The owner of an event's personal data (docs/api.md section 29): the id
-- of the customer (CUSTOMERS events) or of the cart (CARTS events, and
-- ORDERS events: an order is its cart's) whose personal data the payload
-- holds, '' for events that hold none. customer.remove finds the
-- customer's events through it (the account's id and its carts' ids) and
-- rewrites their payloads with the personal fields "[erased]", instead of
-- reading the whole log. The index leaves out the events without an owner
-- (product views by the million).
ALTER TABLE events ADD COLUMN owner TEXT NOT NULL DEFAULT '';

-- Events written before this migration get their owner from their
-- payload, once, here (the same ids the service sets since). Payloads are
-- JSON objects the service wrote.
UPDATE events SET owner = COALESCE(CASE channel
	WHEN 'CUSTOMERS' THEN COALESCE(payload::jsonb -> 'customer' ->> 'id', payload::jsonb ->> 'customerId', payload::jsonb ->> 'id')
	WHEN 'CARTS' THEN payload::jsonb -> 'new' ->> 'id'
	WHEN 'ORDERS' THEN payload::jsonb -> 'order' ->> 'cartId'
END, '')
WHERE channel IN ('CUSTOMERS', 'CARTS', 'ORDERS');

CREATE INDEX events_owner ON events (owner) WHERE owner <> '';
