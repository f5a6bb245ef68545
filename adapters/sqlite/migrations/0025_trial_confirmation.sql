-- A sign-up's trial seconds are given once its address is confirmed by
-- e-mail, and once per address: trial_email is unique among the accounts
-- whose trial was granted (domain.Account.GrantTrial).
ALTER TABLE accounts ADD COLUMN trial_email TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN trial_token_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN trial_granted_at INTEGER;
CREATE UNIQUE INDEX accounts_trial_email ON accounts (trial_email) WHERE trial_granted_at IS NOT NULL;
