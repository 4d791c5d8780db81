CREATE TABLE `event_streams` (
	`id` text PRIMARY KEY NOT NULL,
	`service_account_id` text NOT NULL,
	`process_id` text NOT NULL,
	`opened_at` integer NOT NULL,
	FOREIGN KEY (`service_account_id`) REFERENCES `service_accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`process_id`) REFERENCES `service_processes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_streams_account_idx` ON `event_streams` (`service_account_id`);--> statement-breakpoint
CREATE TABLE `service_processes` (
	`id` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`pid` integer NOT NULL,
	`pid_started_at` text,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `deliveries` ADD `lease_holder` text;