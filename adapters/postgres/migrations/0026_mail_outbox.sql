-- The mail outbox (issue 35): letters wait here until the mail relay took
-- them or their tries ran out (app.SendMail), so a relay that is down when
-- a reset link is asked for delays the letter instead of losing it. body
-- is emptied once a letter is finished: it may carry a one-time link.
CREATE TABLE mail_outbox (
	id text PRIMARY KEY,
	kind text NOT NULL,
	to_addr text NOT NULL,
	subject text NOT NULL,
	body text NOT NULL,
	lang text NOT NULL,
	status text NOT NULL,
	attempts integer NOT NULL DEFAULT 0,
	created_at bigint NOT NULL,
	next_at bigint NOT NULL,
	lease_until bigint,
	finished_at bigint,
	error text NOT NULL DEFAULT ''
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_at) WHERE status = 'pending';
