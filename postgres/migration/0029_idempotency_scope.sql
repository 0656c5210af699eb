-- Idempotency keys are scoped by everything that decides what a caller may
-- see (issue 27): the first column holds a hash of every claim of the
-- caller's token (rpc's idemScope), no longer the token's subject. The
-- keys stored before were scoped by the subject alone, under which the
-- tokens of different customers sharing a subject replayed each other's
-- answers: they are dropped, not carried over (a request first sent before
-- the upgrade and retried after it runs again).
DELETE FROM idempotency_keys;
ALTER TABLE idempotency_keys RENAME COLUMN sub TO scope;
