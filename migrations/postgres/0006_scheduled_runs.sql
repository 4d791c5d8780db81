CREATE TABLE "scheduled_runs" (
	"name" text COLLATE "C" PRIMARY KEY NOT NULL,
	"last_run_at" bigint NOT NULL
);
