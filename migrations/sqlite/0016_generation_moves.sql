-- A row moved to another owner (a connection or a bank account given to another service account,
-- a balance or a transaction put under another bank account: a repair by hand) changes the bank
-- data of the owner it leaves as well as the one it joins. The update triggers of 0002 move only
-- the new owner's generation; these move the old owner's too, so an answer or an owner's check
-- remembered for the old owner is never served after the move. They fire only when the owning
-- column changes, so an ordinary update costs what it did.
CREATE TRIGGER `connections_generation_move` AFTER UPDATE OF `service_account_id` ON `connections`
  WHEN OLD.service_account_id IS NOT NEW.service_account_id BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = OLD.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `bank_accounts_generation_move` AFTER UPDATE OF `service_account_id` ON `bank_accounts`
  WHEN OLD.service_account_id IS NOT NEW.service_account_id BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = OLD.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `balances_generation_move` AFTER UPDATE OF `account_id` ON `balances`
  WHEN OLD.account_id IS NOT NEW.account_id BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = OLD.account_id);
END;--> statement-breakpoint
CREATE TRIGGER `transactions_generation_move` AFTER UPDATE OF `account_id` ON `transactions`
  WHEN OLD.account_id IS NOT NEW.account_id BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = OLD.account_id);
END;
