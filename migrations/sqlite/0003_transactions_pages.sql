-- Transactions are stored in the order pages read them (WITHOUT ROWID, clustered on
-- account_id, booking_date, id), with the JSON the API serves kept by SQLite in a generated
-- column, and the pending -> booked link in both directions. Hand-edited from drizzle-kit's
-- output: WITHOUT ROWID, the copy of the old rows (pending_transaction_id derived from the
-- existing links) and the triggers.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_transactions` (
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`external_id` text NOT NULL,
	`status` text NOT NULL,
	`amount` text NOT NULL,
	`currency` text NOT NULL,
	`booking_date` text NOT NULL,
	`value_date` text,
	`description` text NOT NULL,
	`counterparty_name` text,
	`merchant_name` text,
	`booked_transaction_id` text,
	`pending_transaction_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`json` text GENERATED ALWAYS AS ('{"transaction_id":' || json_quote("id") ||
          ',"account_id":' || json_quote("account_id") ||
          ',"status":' || json_quote("status") ||
          ',"amount":' || json_quote("amount") ||
          ',"currency":' || json_quote("currency") ||
          ',"booking_date":' || json_quote("booking_date") ||
          ',"value_date":' || json_quote("value_date") ||
          ',"description":' || json_quote("description") ||
          ',"counterparty_name":' || json_quote("counterparty_name") ||
          ',"merchant_name":' || json_quote("merchant_name") ||
          ',"pending_transaction_id":' || json_quote("pending_transaction_id") ||
          ',"booked_transaction_id":' || json_quote("booked_transaction_id") || '}') STORED NOT NULL,
	PRIMARY KEY(`account_id`, `booking_date`, `id`),
	FOREIGN KEY (`account_id`) REFERENCES `bank_accounts`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_transactions`("id", "account_id", "external_id", "status", "amount", "currency", "booking_date", "value_date", "description", "counterparty_name", "merchant_name", "booked_transaction_id", "pending_transaction_id", "created_at", "updated_at") SELECT t."id", t."account_id", t."external_id", t."status", t."amount", t."currency", t."booking_date", t."value_date", t."description", t."counterparty_name", t."merchant_name", t."booked_transaction_id", (SELECT p."id" FROM `transactions` p WHERE p."booked_transaction_id" = t."id"), t."created_at", t."updated_at" FROM `transactions` t;--> statement-breakpoint
DROP TABLE `transactions`;--> statement-breakpoint
ALTER TABLE `__new_transactions` RENAME TO `transactions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_id_unique` ON `transactions` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_external_unique` ON `transactions` (`account_id`,`external_id`);--> statement-breakpoint
-- The data-generation triggers went with the old table (0002); the same ones again.
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
