-- service_accounts.data_generation moves with every change of an account's bank data, in the
-- same transaction: remembered /v1 answers are valid only at the generation they were read at.
-- Triggers, so that no write (a sync, an import, the CLI, a repair by hand) can forget it.
CREATE TRIGGER `connections_generation_insert` AFTER INSERT ON `connections` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = NEW.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `connections_generation_update` AFTER UPDATE ON `connections` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = NEW.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `connections_generation_delete` AFTER DELETE ON `connections` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = OLD.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `bank_accounts_generation_insert` AFTER INSERT ON `bank_accounts` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = NEW.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `bank_accounts_generation_update` AFTER UPDATE ON `bank_accounts` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = NEW.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `bank_accounts_generation_delete` AFTER DELETE ON `bank_accounts` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = OLD.service_account_id;
END;--> statement-breakpoint
CREATE TRIGGER `balances_generation_insert` AFTER INSERT ON `balances` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = NEW.account_id);
END;--> statement-breakpoint
CREATE TRIGGER `balances_generation_update` AFTER UPDATE ON `balances` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = NEW.account_id);
END;--> statement-breakpoint
CREATE TRIGGER `balances_generation_delete` AFTER DELETE ON `balances` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = OLD.account_id);
END;--> statement-breakpoint
CREATE TRIGGER `transactions_generation_insert` AFTER INSERT ON `transactions` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = NEW.account_id);
END;--> statement-breakpoint
CREATE TRIGGER `transactions_generation_update` AFTER UPDATE ON `transactions` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = NEW.account_id);
END;--> statement-breakpoint
CREATE TRIGGER `transactions_generation_delete` AFTER DELETE ON `transactions` BEGIN
  UPDATE `service_accounts` SET `data_generation` = `data_generation` + 1
   WHERE `id` = (SELECT service_account_id FROM bank_accounts WHERE id = OLD.account_id);
END;
