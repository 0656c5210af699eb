-- Customers (docs/api.md section 15). The customer is one JSON document
-- (data: names, phone, addresses); the columns are what the store looks
-- up and filters by. password_hash is an argon2id PHC string. seq gives the
-- creation order of lists.
CREATE TABLE customers (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	id            TEXT    NOT NULL UNIQUE,
	email         TEXT    NOT NULL UNIQUE,
	customer_type TEXT    NOT NULL,
	created_at    INTEGER NOT NULL,
	password_hash TEXT    NOT NULL,
	data          TEXT    NOT NULL
);

-- Refresh tokens by the SHA-256 of the opaque token; family is the
-- sign-in they belong to (revoked as a whole); a spent token is kept until
-- it expires, so that its reuse is recognised.
CREATE TABLE refresh_tokens (
	hash        TEXT    PRIMARY KEY,
	family      TEXT    NOT NULL,
	customer_id TEXT    NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
	expires_at  INTEGER NOT NULL,
	spent       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family);
CREATE INDEX refresh_tokens_customer ON refresh_tokens (customer_id);

-- Password-reset tokens by their SHA-256; single use.
CREATE TABLE password_resets (
	hash        TEXT    PRIMARY KEY,
	customer_id TEXT    NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
	expires_at  INTEGER NOT NULL
);
CREATE INDEX password_resets_customer ON password_resets (customer_id);

-- Login failures per (normalised) email, known or not: a JSON array of
-- Unix milliseconds within the lock-out window. The row is what
-- concurrent logins for one email lock, in every process.
CREATE TABLE login_failures (
	email    TEXT PRIMARY KEY,
	failures TEXT NOT NULL
);

-- OAuth 2.0 clients (client credentials); secret_hash is the SHA-256 of
-- the secret.
CREATE TABLE oauth_clients (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	id          TEXT    NOT NULL UNIQUE,
	name        TEXT    NOT NULL,
	scope       TEXT    NOT NULL,
	secret_hash TEXT    NOT NULL,
	created_at  INTEGER NOT NULL
);
