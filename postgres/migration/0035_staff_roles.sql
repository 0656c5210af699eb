-- Staff roles, offboarding, the second factor and the audit log
-- (docs/api.md section 28). Accounts made before roles keep every power
-- they had: they are owners.
ALTER TABLE staff ADD COLUMN role TEXT NOT NULL DEFAULT 'owner';
-- A disabled member cannot sign in and has no session.
ALTER TABLE staff ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
-- The TOTP secret (RFC 6238, base32) once confirmed, and one offered but
-- not confirmed yet; '' when none.
ALTER TABLE staff ADD COLUMN totp_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE staff ADD COLUMN totp_pending TEXT NOT NULL DEFAULT '';

-- A session whose password was right but whose second factor is still
-- to be given (pending = 1) opens no page.
ALTER TABLE staff_sessions ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;

-- Recovery codes of the second factor, SHA-256 hashed; each works once.
CREATE TABLE staff_recovery_codes (
	staff_id  TEXT NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
	code_hash TEXT NOT NULL,
	PRIMARY KEY (staff_id, code_hash)
);

-- Invitations: the SHA-256 of the link's token, valid until expires_at.
CREATE TABLE staff_invites (
	token_hash TEXT    PRIMARY KEY,
	staff_id   TEXT    NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
	expires_at BIGINT  NOT NULL
);
CREATE INDEX staff_invites_staff ON staff_invites (staff_id);

-- The lock-out counts failures per account and source address, and per
-- source address alone.
ALTER TABLE staff_login_failures ADD COLUMN ip TEXT NOT NULL DEFAULT '';
CREATE INDEX staff_login_failures_ip ON staff_login_failures (ip, at);

-- The role of an admin client's tokens ('' is admin).
ALTER TABLE oauth_clients ADD COLUMN role TEXT NOT NULL DEFAULT '';

-- The audit log: appended in the transaction of each change made by staff
-- or an admin token or client; never changed nor removed (the triggers).
CREATE TABLE audit_log (
	id          TEXT    PRIMARY KEY,
	at          BIGINT  NOT NULL,
	actor       TEXT    NOT NULL,
	role        TEXT    NOT NULL,
	action      TEXT    NOT NULL,
	target_kind TEXT    NOT NULL,
	target_id   TEXT    NOT NULL,
	changes     TEXT    NOT NULL,
	ip          TEXT    NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_actor ON audit_log (actor, at);
CREATE INDEX audit_log_target ON audit_log (target_kind, target_id, at);
CREATE INDEX audit_log_action ON audit_log (action, at);
CREATE FUNCTION audit_log_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'audit entries cannot be changed or removed';
END
$$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
	FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
