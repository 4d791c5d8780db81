CREATE TABLE `transaction_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`was_served` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transaction_changes_account_idx` ON `transaction_changes` (`account_id`,`seq`);--> statement-breakpoint
CREATE INDEX `transaction_changes_created_idx` ON `transaction_changes` (`created_at`);--> statement-breakpoint
-- The change feed is written by the database in the same transaction as the change: no writer
-- (sync, import, a repair by hand) can forget it. A row is served when GET …/transactions?
-- include_pending=true shows it: not removed, and booked or a pending row that has not booked.
-- A change is recorded when that served state moves, or a served row's JSON changes. SQLite has
-- one writer: seq follows commit order.
CREATE TRIGGER `transactions_changes_insert` AFTER INSERT ON `transactions`
WHEN (NEW.removed_at IS NULL AND (NEW.status = 'booked' OR NEW.booked_transaction_id IS NULL)) BEGIN
  INSERT INTO `transaction_changes` (`account_id`, `transaction_id`, `was_served`, `created_at`)
  VALUES (NEW.account_id, NEW.id, 0, NEW.updated_at);
END;--> statement-breakpoint
CREATE TRIGGER `transactions_changes_update` AFTER UPDATE ON `transactions`
WHEN (OLD.removed_at IS NULL AND (OLD.status = 'booked' OR OLD.booked_transaction_id IS NULL)) <> (NEW.removed_at IS NULL AND (NEW.status = 'booked' OR NEW.booked_transaction_id IS NULL))
  OR ((NEW.removed_at IS NULL AND (NEW.status = 'booked' OR NEW.booked_transaction_id IS NULL)) AND OLD.json IS NOT NEW.json) BEGIN
  INSERT INTO `transaction_changes` (`account_id`, `transaction_id`, `was_served`, `created_at`)
  VALUES (NEW.account_id, NEW.id, (OLD.removed_at IS NULL AND (OLD.status = 'booked' OR OLD.booked_transaction_id IS NULL)), NEW.updated_at);
END;--> statement-breakpoint
CREATE TRIGGER `transactions_changes_delete` AFTER DELETE ON `transactions`
WHEN (OLD.removed_at IS NULL AND (OLD.status = 'booked' OR OLD.booked_transaction_id IS NULL)) BEGIN
  INSERT INTO `transaction_changes` (`account_id`, `transaction_id`, `was_served`, `created_at`)
  VALUES (OLD.account_id, OLD.id, 1, OLD.updated_at);
END;
