-- Email (docs/api.md section 22). One row per message, rendered when it is
-- queued: to_addr, subject, text and html are what is sent. message_id is
-- the Message-ID header, fixed at queueing (a resend after a crash is the
-- same message). event_id is the event that caused the message; the
-- outbox follower derives the id of the message it queues from the event
-- and the template, so that it queues at most one per (event, template).
-- secret holds, sealed (AES-GCM, a key derived from the JWT secret), what
-- the stored text and html must not show (a password-reset token): they
-- hold a placeholder that the sender replaces. customer_id is the
-- customer the message is about, so that customer.remove erases it.
-- Times are Unix milliseconds; claim and claimed_until are the lease of
-- the dispatcher sending it.
CREATE TABLE mails (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	id              TEXT    NOT NULL UNIQUE,
	message_id      TEXT    NOT NULL,
	to_addr         TEXT    NOT NULL,
	template        TEXT    NOT NULL,
	locale          TEXT    NOT NULL,
	subject         TEXT    NOT NULL,
	text            TEXT    NOT NULL,
	html            TEXT    NOT NULL,
	secret          TEXT,
	event_id        TEXT,
	customer_id     TEXT,
	status          TEXT    NOT NULL,
	attempts        INTEGER NOT NULL DEFAULT 0,
	last_error      TEXT,
	next_attempt_at INTEGER,
	created_at      INTEGER NOT NULL,
	sent_at         INTEGER,
	claim           TEXT,
	claimed_until   INTEGER
);
CREATE INDEX mails_to ON mails (to_addr, template, created_at);
CREATE INDEX mails_customer ON mails (customer_id);
CREATE INDEX mails_due ON mails (next_attempt_at) WHERE status = 'PENDING';

-- The customers whose messages customer.remove erased: a message the
-- follower stores later for an event about one of them is stored
-- cancelled and erased.
CREATE TABLE mail_erasures (
	customer_id TEXT PRIMARY KEY,
	erased_at   INTEGER NOT NULL
);

-- The outbox follower starts at the end of the log: an existing shop does
-- not mail its past orders.
INSERT INTO relay_cursors (name, k, seq)
SELECT 'mail', k, seq FROM events ORDER BY k DESC, seq DESC LIMIT 1;
