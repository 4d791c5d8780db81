DROP INDEX `deliveries_recovery_idx`;--> statement-breakpoint
CREATE INDEX `deliveries_recovery_idx` ON `deliveries` (`recovery_id`) WHERE recovery_id IS NOT NULL;