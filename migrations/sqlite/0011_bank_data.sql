CREATE TABLE `transaction_provider_ids` (
	`account_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `provider_id`, `transaction_id`),
	FOREIGN KEY (`account_id`) REFERENCES `bank_accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `transaction_provider_ids_transaction_idx` ON `transaction_provider_ids` (`transaction_id`);--> statement-breakpoint
ALTER TABLE `connections` ADD `notice` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `removed_at` integer;--> statement-breakpoint
-- The ids rows were stored under so far are the first provider ids they were seen under.
INSERT INTO `transaction_provider_ids` (`account_id`, `provider_id`, `transaction_id`, `first_seen_at`, `last_seen_at`)
  SELECT `account_id`, `external_id`, `id`, `created_at`, `updated_at` FROM `transactions`;