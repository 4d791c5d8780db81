CREATE TABLE `rate_limit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_limit_log_key_at_idx` ON `rate_limit_log` (`key`,`at`);