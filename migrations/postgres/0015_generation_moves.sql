-- A row moved to another owner (a connection or a bank account given to another service account,
-- a balance or a transaction put under another bank account: a repair by hand) changes the bank
-- data of the owner it leaves as well as the one it joins. The update triggers of 0001 read only
-- the new rows, so they moved only the new owner's generation; these read the old rows too, so
-- an answer or an owner's check remembered for the old owner is never served after the move.
-- Each owner still moves once per statement, and rows are still locked in id order.
CREATE FUNCTION svc_bump_generation_by_owner_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE service_accounts SET data_generation = data_generation + 1
   WHERE id IN (SELECT id FROM service_accounts
                 WHERE id IN (SELECT service_account_id FROM changed_rows
                              UNION SELECT service_account_id FROM old_rows)
                 ORDER BY id FOR UPDATE);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION svc_bump_generation_by_bank_account_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE service_accounts SET data_generation = data_generation + 1
   WHERE id IN (SELECT id FROM service_accounts
                 WHERE id IN (SELECT b.service_account_id FROM bank_accounts b
                               WHERE b.id IN (SELECT account_id FROM changed_rows
                                              UNION SELECT account_id FROM old_rows))
                 ORDER BY id FOR UPDATE);
  RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER "connections_generation_update" ON "connections";--> statement-breakpoint
CREATE TRIGGER "connections_generation_update" AFTER UPDATE ON "connections"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner_update();--> statement-breakpoint
DROP TRIGGER "bank_accounts_generation_update" ON "bank_accounts";--> statement-breakpoint
CREATE TRIGGER "bank_accounts_generation_update" AFTER UPDATE ON "bank_accounts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner_update();--> statement-breakpoint
DROP TRIGGER "balances_generation_update" ON "balances";--> statement-breakpoint
CREATE TRIGGER "balances_generation_update" AFTER UPDATE ON "balances"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account_update();--> statement-breakpoint
DROP TRIGGER "transactions_generation_update" ON "transactions";--> statement-breakpoint
CREATE TRIGGER "transactions_generation_update" AFTER UPDATE ON "transactions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account_update();
