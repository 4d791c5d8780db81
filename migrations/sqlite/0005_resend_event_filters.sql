ALTER TABLE `deliveries` ADD `manual` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `event_types` text;