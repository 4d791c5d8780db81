CREATE TABLE `link_states` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`service_account_id` text NOT NULL,
	`connection_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`service_account_id`) REFERENCES `service_accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`connection_id`) REFERENCES `connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `link_states_connection_idx` ON `link_states` (`connection_id`);--> statement-breakpoint
ALTER TABLE `connections` ADD `consent_expires_at` integer;--> statement-breakpoint
ALTER TABLE `connections` ADD `provider_secret` text;--> statement-breakpoint
ALTER TABLE `connections` ADD `consecutive_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `connections` ADD `next_pull_at` integer;