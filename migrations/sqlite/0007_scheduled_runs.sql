CREATE TABLE `scheduled_runs` (
	`name` text PRIMARY KEY NOT NULL,
	`last_run_at` integer NOT NULL
);
