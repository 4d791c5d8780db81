-- service_accounts.data_generation moves with every change of an account's bank data, in the
-- same transaction (see migrations/sqlite/0002): statement-level triggers over the changed rows,
-- so a sync writing hundreds of rows bumps each account once. Rows are locked in id order, so two
-- transactions touching the same accounts cannot deadlock on them.
CREATE FUNCTION svc_bump_generation_by_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE service_accounts SET data_generation = data_generation + 1
   WHERE id IN (SELECT id FROM service_accounts
                 WHERE id IN (SELECT service_account_id FROM changed_rows)
                 ORDER BY id FOR UPDATE);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION svc_bump_generation_by_bank_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE service_accounts SET data_generation = data_generation + 1
   WHERE id IN (SELECT id FROM service_accounts
                 WHERE id IN (SELECT b.service_account_id FROM bank_accounts b
                               WHERE b.id IN (SELECT account_id FROM changed_rows))
                 ORDER BY id FOR UPDATE);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "connections_generation_insert" AFTER INSERT ON "connections"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner();--> statement-breakpoint
CREATE TRIGGER "connections_generation_update" AFTER UPDATE ON "connections"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner();--> statement-breakpoint
CREATE TRIGGER "connections_generation_delete" AFTER DELETE ON "connections"
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner();--> statement-breakpoint
CREATE TRIGGER "bank_accounts_generation_insert" AFTER INSERT ON "bank_accounts"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner();--> statement-breakpoint
CREATE TRIGGER "bank_accounts_generation_update" AFTER UPDATE ON "bank_accounts"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner();--> statement-breakpoint
CREATE TRIGGER "bank_accounts_generation_delete" AFTER DELETE ON "bank_accounts"
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_owner();--> statement-breakpoint
CREATE TRIGGER "balances_generation_insert" AFTER INSERT ON "balances"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account();--> statement-breakpoint
CREATE TRIGGER "balances_generation_update" AFTER UPDATE ON "balances"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account();--> statement-breakpoint
CREATE TRIGGER "balances_generation_delete" AFTER DELETE ON "balances"
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account();--> statement-breakpoint
CREATE TRIGGER "transactions_generation_insert" AFTER INSERT ON "transactions"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account();--> statement-breakpoint
CREATE TRIGGER "transactions_generation_update" AFTER UPDATE ON "transactions"
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account();--> statement-breakpoint
CREATE TRIGGER "transactions_generation_delete" AFTER DELETE ON "transactions"
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT
  EXECUTE FUNCTION svc_bump_generation_by_bank_account();
