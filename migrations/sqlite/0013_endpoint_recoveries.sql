CREATE TABLE `endpoint_recoveries` (
	`id` text PRIMARY KEY NOT NULL,
	`endpoint_id` text NOT NULL,
	`service_account_id` text NOT NULL,
	`since` integer NOT NULL,
	`until` integer NOT NULL,
	`status` text DEFAULT 'running' NOT NULL,
	`total` integer NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`unsent` integer DEFAULT 0 NOT NULL,
	`cursor_created_at` integer,
	`cursor_event_id` text,
	`next_step_at` integer,
	`stop_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_account_id`) REFERENCES `service_accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `endpoint_recoveries_running_idx` ON `endpoint_recoveries` (`endpoint_id`) WHERE status = 'running';--> statement-breakpoint
CREATE INDEX `endpoint_recoveries_account_idx` ON `endpoint_recoveries` (`service_account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `endpoint_recoveries_due_idx` ON `endpoint_recoveries` (`status`,`next_step_at`);--> statement-breakpoint
ALTER TABLE `deliveries` ADD `recovery_id` text;--> statement-breakpoint
CREATE INDEX `deliveries_recovery_idx` ON `deliveries` (`recovery_id`);