-- The mail outbox (issue 35): letters wait here until the mail relay took
-- them or their tries ran out (app.SendMail), so a relay that is down when
-- a reset link is asked for delays the letter instead of losing it. body
-- is emptied once a letter is finished: it may carry a one-time link.
CREATE TABLE mail_outbox (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL,
	to_addr TEXT NOT NULL,
	subject TEXT NOT NULL,
	body TEXT NOT NULL,
	lang TEXT NOT NULL,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	next_at INTEGER NOT NULL,
	lease_until INTEGER,
	finished_at INTEGER,
	error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_at) WHERE status = 'pending';
