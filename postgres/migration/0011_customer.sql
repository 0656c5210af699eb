-- Customers (docs/api.md section 15). The customer is one JSON document
-- (data: names, phone, addresses); the columns are what the store looks
-- up and filters by. password_hash is an argon2id PHC string. seq gives the
-- creation order of lists.
CREATE TABLE customers (
	seq           BIGSERIAL PRIMARY KEY,
	id            TEXT   NOT NULL,
	email         TEXT   NOT NULL,
	customer_type TEXT   NOT NULL,
	created_at    BIGINT NOT NULL,
	password_hash TEXT   NOT NULL,
	data          TEXT   NOT NULL,
	CONSTRAINT customers_id UNIQUE (id),
	CONSTRAINT email UNIQUE (email)
);

-- Refresh tokens by the SHA-256 of the opaque token; family is the
-- sign-in they belong to (revoked as a whole); a spent token is kept until
-- it expires, so that its reuse is recognised.
CREATE TABLE refresh_tokens (
	hash        TEXT    NOT NULL,
	family      TEXT    NOT NULL,
	customer_id TEXT    NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
	expires_at  BIGINT  NOT NULL,
	spent       BOOLEAN NOT NULL DEFAULT FALSE,
	CONSTRAINT refresh_tokens_pkey PRIMARY KEY (hash)
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family);
CREATE INDEX refresh_tokens_customer ON refresh_tokens (customer_id);

-- Password-reset tokens by their SHA-256; single use.
CREATE TABLE password_resets (
	hash        TEXT   NOT NULL,
	customer_id TEXT   NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
	expires_at  BIGINT NOT NULL,
	CONSTRAINT password_resets_pkey PRIMARY KEY (hash)
);
CREATE INDEX password_resets_customer ON password_resets (customer_id);

-- Login failures per (normalised) email, known or not: a JSON array of
-- Unix milliseconds within the lock-out window. The row is what
-- concurrent logins for one email lock, in every process.
CREATE TABLE login_failures (
	email    TEXT NOT NULL,
	failures TEXT NOT NULL,
	CONSTRAINT login_failures_pkey PRIMARY KEY (email)
);

-- OAuth 2.0 clients (client credentials); secret_hash is the SHA-256 of
-- the secret.
CREATE TABLE oauth_clients (
	seq         BIGSERIAL PRIMARY KEY,
	id          TEXT   NOT NULL,
	name        TEXT   NOT NULL,
	scope       TEXT   NOT NULL,
	secret_hash TEXT   NOT NULL,
	created_at  BIGINT NOT NULL,
	CONSTRAINT oauth_clients_id UNIQUE (id)
);
