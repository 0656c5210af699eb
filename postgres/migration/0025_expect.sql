-- commerce_expect(ok) is true, or fails the statement that calls it with
-- SQLSTATE ZC001 (sqldb.ErrUnmet). A statement sent with the COMMIT, in
-- the same round trip, before its result can be seen (sqldb's
-- Tx.ExecAtCommit: a cart's update over the version it was computed from,
-- a reservation that needs enough units) checks itself with it, e.g.
--   WITH u AS (UPDATE ... RETURNING 1)
--   SELECT commerce_expect((SELECT count(*) FROM u) = 1)
-- and its failure aborts the transaction before the COMMIT.
CREATE OR REPLACE FUNCTION commerce_expect(ok boolean) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
	IF ok IS NOT TRUE THEN
		RAISE EXCEPTION 'commerce_expect: the statement''s condition does not hold' USING ERRCODE = 'ZC001';
	END IF;
	RETURN true;
END
$$;
