PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_delivery_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt_number` integer NOT NULL,
	`started_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`status_code` integer,
	`error_class` text,
	`error_message` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_delivery_attempts`("id", "delivery_id", "attempt_number", "started_at", "duration_ms", "outcome", "status_code", "error_class", "error_message") SELECT "id", "delivery_id", "attempt_number", "started_at", "duration_ms", "outcome", "status_code", "error_class", "error_message" FROM `delivery_attempts`;--> statement-breakpoint
DROP TABLE `delivery_attempts`;--> statement-breakpoint
ALTER TABLE `__new_delivery_attempts` RENAME TO `delivery_attempts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `delivery_attempts_delivery_idx` ON `delivery_attempts` (`delivery_id`,`attempt_number`);--> statement-breakpoint
CREATE TABLE `__new_instance_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_instance_meta`("key", "value", "updated_at") SELECT "key", "value", "updated_at" FROM `instance_meta`;--> statement-breakpoint
DROP TABLE `instance_meta`;--> statement-breakpoint
ALTER TABLE `__new_instance_meta` RENAME TO `instance_meta`;--> statement-breakpoint
ALTER TABLE `service_accounts` ADD `data_generation` integer DEFAULT 0 NOT NULL;