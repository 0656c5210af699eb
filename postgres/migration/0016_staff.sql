-- Staff accounts of the admin app (/admin/). password_hash is an argon2id
-- PHC string; emails are trimmed and lower-cased.
CREATE TABLE staff (
	id            TEXT   PRIMARY KEY,
	email         TEXT   NOT NULL,
	password_hash TEXT   NOT NULL,
	created_at    BIGINT NOT NULL
);
CREATE UNIQUE INDEX staff_email ON staff (email);

-- Signed-in sessions: the SHA-256 of the cookie's random id, never the id.
CREATE TABLE staff_sessions (
	id_hash    TEXT   PRIMARY KEY,
	staff_id   TEXT   NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
	created_at BIGINT NOT NULL,
	expires_at BIGINT NOT NULL
);
CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);

-- Sign-in attempts per email (known or not) for the lock-out: a row is
-- written before the password is checked and deleted when it was right, so
-- the rows of the last 15 minutes are the failures (and the attempts in
-- flight). staff_login_locks holds one row per email that an attempt locks
-- while it counts, so that parallel attempts count one after the other.
CREATE TABLE staff_login_failures (
	id    TEXT   PRIMARY KEY,
	email TEXT   NOT NULL,
	at    BIGINT NOT NULL
);
CREATE INDEX staff_login_failures_email ON staff_login_failures (email, at);
CREATE TABLE staff_login_locks (
	email TEXT PRIMARY KEY
);

-- Who made a change, when a person did through the admin app
-- ("staff:<id>"); empty for API calls.
ALTER TABLE events ADD COLUMN actor TEXT NOT NULL DEFAULT '';
