ALTER TABLE `connections` ADD `consent_warned_7d_at` integer;--> statement-breakpoint
ALTER TABLE `connections` ADD `consent_warned_1d_at` integer;--> statement-breakpoint
ALTER TABLE `link_states` ADD `binding_hash` text;--> statement-breakpoint
ALTER TABLE `link_states` ADD `purpose` text DEFAULT 'link' NOT NULL;